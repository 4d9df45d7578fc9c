import { sql } from 'kysely'
import type { Executor } from '../../infra/db/schema.ts'

/*
 * `rate_limits` counters are keyed by a bucket name (an API key's id, a login throttle's
 * address or email) with the window's start, not by tenant: the limit applies before, or
 * regardless of, which tenant a request acts for. Nothing here reads tenant data.
 */

/** Adds one to `bucket`'s counter (creating it at 1) and returns the new count. */
export async function incrementBucket(
  db: Executor,
  bucket: string,
  windowStart: number,
): Promise<number> {
  const { count } = await db
    .insertInto('rate_limits')
    .values({ bucket, window_start: windowStart, count: 1 })
    .onConflict((oc) => oc.column('bucket').doUpdateSet({ count: sql`rate_limits.count + 1` }))
    .returning('count')
    .executeTakeFirstOrThrow()
  return Number(count)
}

/** `bucket`'s count; 0 when nothing was counted. */
export async function readBucket(db: Executor, bucket: string): Promise<number> {
  const row = await db
    .selectFrom('rate_limits')
    .select('count')
    .where('bucket', '=', bucket)
    .executeTakeFirst()
  return Number(row?.count ?? 0)
}

/**
 * The longest window any counter of `rate_limits` may use (the login throttle's are 15 minutes):
 * a counter is removed only once its window started longer ago than this.
 */
export const MAX_WINDOW_MS = 3_600_000

/** Removes every counter of windows that started before `windowStart` (ms since the epoch). */
export async function pruneWindowsBefore(db: Executor, windowStart: number): Promise<void> {
  await db.deleteFrom('rate_limits').where('window_start', '<', windowStart).execute()
}
