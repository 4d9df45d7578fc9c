import rateLimit, {
  type FastifyRateLimitStore,
  type RateLimitPluginOptions,
} from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import type { Clock } from '../../shared/clock.ts'
import {
  incrementBucket,
  MAX_WINDOW_MS,
  pruneWindowsBefore,
  readBucket,
} from './rate-limit.cross-tenant.repository.ts'

/** Where a fixed window of `windowMs` stands at `now`: its row name and the time left. */
export function fixedWindow(key: string, now: number, windowMs: number) {
  const windowStart = now - (now % windowMs)
  return { bucket: `${key}:${windowStart}`, windowStart, ttl: windowStart + windowMs - now }
}

/**
 * Counts one more event in `key`'s current fixed window (a row of `rate_limits`) and returns the
 * window's count. Every process shares the row (DESIGN §2: nothing lives only in one process's
 * memory); the API's per-key limit and the dashboard's login throttle both count here.
 */
export async function countInWindow(
  db: Kysely<Database>,
  key: string,
  now: number,
  windowMs: number,
): Promise<{ count: number; ttl: number }> {
  const { bucket, windowStart, ttl } = fixedWindow(key, now, windowMs)
  return { count: await incrementBucket(db, bucket, windowStart), ttl }
}

/** The count of `key`'s current window without adding to it (0 when nothing was counted). */
export async function peekWindow(
  db: Kysely<Database>,
  key: string,
  now: number,
  windowMs: number,
): Promise<{ count: number; ttl: number }> {
  const { bucket, ttl } = fixedWindow(key, now, windowMs)
  return { count: await readBucket(db, bucket), ttl }
}

/** The per-key API budget: `countInWindow` behind @fastify/rate-limit's store interface. */
function databaseStore(db: Kysely<Database>, clock: Clock) {
  let sinceCleanup = 0
  const store: FastifyRateLimitStore = {
    incr(key, callback, timeWindow) {
      const now = clock.now().getTime()
      countInWindow(db, key, now, timeWindow)
        .then(async (counted) => {
          if (++sinceCleanup >= 1000) {
            sinceCleanup = 0
            // Windows up to an hour long share the table (the login throttle's are 15 minutes).
            const { windowStart } = fixedWindow(key, now, timeWindow)
            await pruneWindowsBefore(db, windowStart - MAX_WINDOW_MS)
          }
          callback(null, { current: counted.count, ttl: counted.ttl })
        })
        .catch((err: Error) => callback(err))
    },
    child() {
      return store
    },
  }
  return store
}

/** Per API key, `perMinute` requests a minute; 429 with Retry-After beyond it. 0 disables. */
export async function registerRateLimit(
  app: FastifyInstance,
  options: { db: Kysely<Database>; clock: Clock; perMinute: number },
): Promise<void> {
  if (options.perMinute <= 0) return
  const store = databaseStore(options.db, options.clock)
  const config: RateLimitPluginOptions = {
    global: true,
    max: options.perMinute,
    timeWindow: 60_000,
    hook: 'preHandler',
    store: function Store() {
      return store
    } as unknown as RateLimitPluginOptions['store'],
    keyGenerator: (request) => request.auth?.keyId ?? request.ip,
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      error: 'Too Many Requests',
      message: `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`,
    }),
  }
  await app.register(rateLimit, config)
}
