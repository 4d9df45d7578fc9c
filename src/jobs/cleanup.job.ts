import type { AppContext } from '../context.ts'
import type { TaskDefinition } from '../infra/queue/index.ts'

/** Runs every hour (schedule `maintenance.cleanup`). */
export const CLEANUP_INTERVAL_SECONDS = 3600

const DAY_MS = 24 * 3600 * 1000

/**
 * Housekeeping that keeps tables and storage from growing without bound: presigned uploads
 * that expired unprocessed (their bytes too), replay records older than a day, rate-limit
 * windows older than a few minutes, finished jobs older than a week.
 */
export function cleanupTask(ctx: AppContext): TaskDefinition {
  return {
    async handler(_payload, { clock }) {
      const now = clock.now()
      const db = ctx.db.kysely
      const expired = await db
        .selectFrom('upload_intents')
        .select(['id', 'storage_path'])
        .where('consumed_at', 'is', null)
        .where('expires_at', '<', new Date(now.getTime() - DAY_MS).toISOString())
        .limit(1000)
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
      await db
        .deleteFrom('jobs')
        .where('status', '=', 'completed')
        .where('updated_at', '<', new Date(now.getTime() - 7 * DAY_MS).toISOString())
        .execute()
    },
  }
}
