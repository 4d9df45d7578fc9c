import rateLimit, {
  type FastifyRateLimitStore,
  type RateLimitPluginOptions,
} from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import { sql } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import type { Clock } from '../../shared/clock.ts'

/**
 * Fixed-window counters in the database, so every API process behind a load balancer shares
 * one budget per key (DESIGN §2: nothing lives only in one process's memory).
 */
function databaseStore(db: Kysely<Database>, clock: Clock) {
  let sinceCleanup = 0
  const store: FastifyRateLimitStore = {
    incr(key, callback, timeWindow) {
      const now = clock.now().getTime()
      const windowStart = now - (now % timeWindow)
      const bucket = `${key}:${windowStart}`
      db.insertInto('rate_limits')
        .values({ bucket, window_start: windowStart, count: 1 })
        .onConflict((oc) => oc.column('bucket').doUpdateSet({ count: sql`rate_limits.count + 1` }))
        .returning('count')
        .executeTakeFirstOrThrow()
        .then(async ({ count }) => {
          if (++sinceCleanup >= 1000) {
            sinceCleanup = 0
            await db.deleteFrom('rate_limits').where('window_start', '<', windowStart).execute()
          }
          callback(null, { current: Number(count), ttl: windowStart + timeWindow - now })
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
