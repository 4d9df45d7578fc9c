import type { PostgresPool, PostgresPoolClient } from 'kysely'
import { AppError } from '../../shared/app-error.ts'
import { postgresStatementName } from './named-statements.ts'

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
])

/**
 * PostgreSQL's "not now" answers: class 08 (connection exception), 57P01-57P03 (shutting down,
 * crashed, starting up) and 53300 (too many connections).
 */
function isServerUnavailableCode(code: string): boolean {
  return code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300'
}

/** node-postgres reports a dropped or timed-out connection only in its message. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/

/** Whether `err` says the database cannot be reached (rather than that a query was wrong). */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== 'object' || depth > 4) return false
  const e = err as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown }
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || isServerUnavailableCode(e.code)))
    return true
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1)))
    return true
  return isDatabaseUnavailable(e.cause, depth + 1)
}

/** `database_unavailable` (503 with Retry-After) for an unreachable database, else `err`. */
export function asDatabaseError(err: unknown): unknown {
  if (!isDatabaseUnavailable(err)) return err
  const unavailable = new AppError(
    'database_unavailable',
    'The database cannot be reached; try again shortly',
  )
  unavailable.cause = err
  return unavailable
}

/**
 * The pool as Kysely sees it, with outages translated: a failed connect or a connection lost
 * mid-query becomes `database_unavailable`, so every caller (HTTP handlers, jobs) reports it the
 * same way without knowing node-postgres's error shapes.
 */
export function translatingPool(pool: PostgresPool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      let client: PostgresPoolClient
      try {
        client = await pool.connect()
      } catch (err) {
        throw asDatabaseError(err)
      }
      const send = client.query as (...a: unknown[]) => unknown
      const query = (...args: [unknown, unknown?]) => {
        // A marked text goes as a named prepared statement (named-statements.ts).
        const name = typeof args[0] === 'string' ? postgresStatementName(args[0]) : undefined
        const result = name
          ? send.call(client, { name, text: args[0], values: args[1] })
          : send.apply(client, args)
        // A cursor (streaming) is returned as is; a query's promise has its outage translated.
        if (result instanceof Promise) {
          return result.catch((err: unknown) => {
            throw asDatabaseError(err)
          })
        }
        return result
      }
      return {
        query: query as PostgresPoolClient['query'],
        release: (destroy?: boolean) => client.release(destroy),
        // Kysely cancels a query through a second connection to this backend process.
        get processID() {
          return client.processID
        },
      }
    },
    end: () => pool.end(),
    // Kysely opens its query-cancelling connection with the pool's Client and options.
    ...(pool.Client && { Client: pool.Client }),
    options: pool.options,
  }
}
