import type { AppContext } from '../context.ts'
import { createQueue, type TaskDefinition } from '../infra/queue/index.ts'

/** Runs every hour (schedule `maintenance.cleanup`). */
export const CLEANUP_INTERVAL_SECONDS = 3600

const DAY_MS = 24 * 3600 * 1000

/** Upload intents handled per run; the hourly schedule catches up with any backlog. */
const INTENT_BATCH = 1000

/**
 * Housekeeping that keeps tables and storage from growing without bound:
 * - presigned uploads a day after their URL expired, processed or not: the object at their key
 *   is deleted, then the record. An S3 presigned URL still accepts a PUT after its upload was
 *   processed (until it expires), so only a delete after expiry guarantees nothing is left that
 *   no record accounts for;
 * - replay records older than a day, rate-limit windows older than ten minutes;
 * - completed jobs older than a week (the queue's own prune).
 */
export function cleanupTask(ctx: AppContext): TaskDefinition {
  return {
    async handler(_payload, { clock }) {
      const now = clock.now()
      const db = ctx.db.kysely
      const expired = await db
        .selectFrom('upload_intents')
        .select(['id', 'storage_path'])
        .where('expires_at', '<', new Date(now.getTime() - DAY_MS).toISOString())
        .limit(INTENT_BATCH)
        .execute()
      for (const intent of expired) {
        await ctx.blobs.delete(intent.storage_path)
        await db.deleteFrom('upload_intents').where('id', '=', intent.id).execute()
      }
      await db
        .deleteFrom('idempotency_keys')
        .where('created_at', '<', new Date(now.getTime() - DAY_MS).toISOString())
        .execute()
      await db
        .deleteFrom('rate_limits')
        .where('window_start', '<', now.getTime() - 10 * 60_000)
        .execute()
      await createQueue(ctx.db, { clock }).jobs.prune(new Date(now.getTime() - 7 * DAY_MS))
    },
  }
}
