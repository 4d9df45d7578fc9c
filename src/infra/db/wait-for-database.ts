import { sql } from 'kysely'
import type { Db } from './database.ts'

/** The database did not answer within the start-up wait; `message` is one line for operators. */
export class DatabaseUnreachableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'DatabaseUnreachableError'
  }
}

/** `url` without its password (and query string), fit for a log line or an error message. */
export function describeDatabaseUrl(url: string): string {
  if (!/^postgres(ql)?:\/\//.test(url)) return url
  try {
    const parsed = new URL(url)
    parsed.password = ''
    parsed.search = ''
    return parsed.toString()
  } catch {
    return 'postgres://(unparsable URL)'
  }
}

function reasonOf(err: unknown): string {
  let current: unknown = err
  // The translated `database_unavailable` wraps the driver's error; name the driver's reason.
  while (current instanceof Error && current.cause instanceof Error) current = current.cause
  const e = current as { code?: unknown; message?: unknown } | null
  const code = typeof e?.code === 'string' ? e.code : undefined
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0] : String(current)
  return code && !message?.includes(code) ? `${code}: ${message}` : (message ?? 'unknown error')
}

export interface WaitOptions {
  /**
   * How long to keep trying before giving up (DATABASE_STARTUP_WAIT_SECONDS): databases often
   * start after the applications that use them. Default 60 000 ms; 0 tries once.
   */
  timeoutMs?: number
  /** First pause between tries, doubled each time up to `maxDelayMs`. Default 250 ms. */
  initialDelayMs?: number
  /** Default 5 000 ms. */
  maxDelayMs?: number
  /** Told about each failed try (a log line); default silent. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void
}

/**
 * Runs `select 1` until it succeeds, retrying with exponential backoff for a bounded time; then
 * throws `DatabaseUnreachableError` naming DATABASE_URL (without its password) and the reason.
 * SQLite is tried once: a file that cannot be opened will not open later.
 */
export async function waitForDatabase(db: Db, url: string, options: WaitOptions = {}) {
  const timeoutMs = db.dialect === 'sqlite' ? 0 : (options.timeoutMs ?? 60_000)
  const maxDelayMs = options.maxDelayMs ?? 5000
  const started = Date.now()
  let delayMs = options.initialDelayMs ?? 250
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`select 1`.execute(db.kysely)
      return
    } catch (err) {
      const reason = reasonOf(err)
      const elapsed = Date.now() - started
      if (elapsed + delayMs > timeoutMs) {
        const waited = timeoutMs > 0 ? ` after ${Math.round(elapsed / 1000)} s` : ''
        throw new DatabaseUnreachableError(
          `DATABASE_URL: cannot connect to ${describeDatabaseUrl(url)}${waited} (${reason})`,
          { cause: err },
        )
      }
      options.onRetry?.({ attempt, delayMs, reason })
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      delayMs = Math.min(delayMs * 2, maxDelayMs)
    }
  }
}
