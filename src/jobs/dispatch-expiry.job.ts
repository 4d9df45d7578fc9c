import type { AppContext } from '../context.ts'
import type { TaskDefinition } from '../infra/queue/index.ts'
import { claimExpiry, dueExpiries } from '../modules/dispatches/dispatch.cross-tenant.repository.ts'
import { dispatchEventData } from '../modules/dispatches/dispatch.mapper.ts'
import { recordAuditEvent } from '../modules/events/audit-event.repository.ts'

export const DISPATCH_EXPIRY_TASK = 'dispatches.expire'

/** Runs every minute (schedule `dispatches.expire`): dispatch.expired is at most a minute late. */
export const DISPATCH_EXPIRY_INTERVAL_SECONDS = 60

const BATCH = 500

/**
 * Records `dispatch.expired` once for each expiry that has passed (launches are already refused
 * from the instant it passes; this only emits the event). Each event is claimed by a
 * compare-and-set on the row in the event's own transaction, so workers running it at once, or
 * a re-run after a crash, never emit one twice. An extend resets the claim for the new expiry.
 */
export function dispatchExpiryTask(ctx: AppContext): TaskDefinition {
  return {
    async handler(_payload, { clock }) {
      const db = ctx.db.kysely
      for (;;) {
        const now = clock.now()
        const due = await dueExpiries(db, now.toISOString(), BATCH)
        for (const row of due) {
          const expiresAt = row.expires_at
          if (!expiresAt) continue
          await db.transaction().execute(async (trx) => {
            if (!(await claimExpiry(trx, row.id, expiresAt, now.toISOString()))) return
            await recordAuditEvent(
              trx,
              { tenantId: row.tenant_id, mode: row.mode },
              {
                type: 'dispatch.expired',
                entityType: 'dispatch',
                entityId: row.id,
                data: dispatchEventData(row, now),
                occurredAt: expiresAt,
              },
            )
          })
        }
        if (due.length < BATCH) return
      }
    },
  }
}
