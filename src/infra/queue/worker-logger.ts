/** Structured logger; a pino logger fits. */
export interface WorkerLogger {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/** The default: warnings and errors to the console, info dropped. */
export const consoleLogger: WorkerLogger = {
  info: () => {},
  warn: (obj, msg) => console.warn(`[worker] ${msg}`, obj),
  error: (obj, msg) => console.error(`[worker] ${msg}`, obj),
}
