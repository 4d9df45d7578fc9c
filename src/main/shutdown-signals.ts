/**
 * Catches SIGTERM and SIGINT from the moment it is called. A signal that arrives while the process
 * is still starting (after /healthz answers, before the worker is up) is kept and handed to the
 * handler once `whenStarted` gives it, so a process asked to stop while it starts stops cleanly
 * instead of being killed half-way. Each signal is caught once; a second one ends the process.
 */
export function catchShutdownSignals(): { whenStarted(handler: (signal: string) => void): void } {
  let requested: string | null = null
  let handle: ((signal: string) => void) | null = null
  const receive = (signal: string) => {
    if (handle) handle(signal)
    else requested ??= signal
  }
  process.once('SIGTERM', receive)
  process.once('SIGINT', receive)
  return {
    whenStarted(handler) {
      handle = handler
      if (requested) handler(requested)
    },
  }
}
