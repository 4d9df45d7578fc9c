import type { AppContext } from '../context.ts'
import {
  MAX_WINDOW_MS,
  pruneWindowsBefore,
} from '../http/plugins/rate-limit.cross-tenant.repository.ts'
import { createQueue, type TaskDefinition } from '../infra/queue/index.ts'
import {
  deleteExpiredInvites,
  deleteExpiredSessions,
} from '../modules/accounts/account.cross-tenant.repository.ts'
import { DEFAULT_ACCOUNT_POLICY } from '../modules/accounts/account.service.ts'
import {
  deleteUploadIntent,
  expiredUploadIntents,
  pruneIdempotencyKeys,
} from './maintenance.cross-tenant.repository.ts'

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
 * - replay records older than a day, rate-limit windows that started over an hour ago (the
 *   longest window any counter uses: a login throttle's 15 minutes must outlive a run);
 * - dashboard sign-in sessions past their absolute expiry or idle longer than the idle limit
 *   (AccountService's defaults: 12 hours, 2 hours), and invite links a day after they expired;
 * - completed jobs older than a week (the queue's own prune).
 */
export function cleanupTask(ctx: AppContext): TaskDefinition {
  return {
    async handler(_payload, { clock }) {
      const now = clock.now()
      const db = ctx.db.kysely
      const dayAgo = new Date(now.getTime() - DAY_MS).toISOString()
      for (const intent of await expiredUploadIntents(db, dayAgo, INTENT_BATCH)) {
        await ctx.blobs.delete(intent.storage_path)
        await deleteUploadIntent(db, intent.id)
      }
      await pruneIdempotencyKeys(db, dayAgo)
      await pruneWindowsBefore(db, now.getTime() - MAX_WINDOW_MS)
      const idleBefore = new Date(now.getTime() - DEFAULT_ACCOUNT_POLICY.idleMs).toISOString()
      await deleteExpiredSessions(db, now.toISOString(), idleBefore)
      await deleteExpiredInvites(db, dayAgo)
      await createQueue(ctx.db, { clock }).jobs.prune(new Date(now.getTime() - 7 * DAY_MS))
    },
  }
}
