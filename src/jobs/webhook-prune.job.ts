import type { AppContext } from '../context.ts'
import type { TaskDefinition } from '../infra/queue/index.ts'

/** Runs every hour (schedule `webhooks.prune`). */
export const WEBHOOK_PRUNE_INTERVAL_SECONDS = 3600

/**
 * Deletes delivered and dead-lettered deliveries, with their attempt history, older than
 * WEBHOOK_RETENTION_DAYS (default 30); queued and failed ones are never pruned.
 */
export function webhookPruneTask(ctx: AppContext): TaskDefinition {
  return {
    async handler() {
      await ctx.services.webhooks.deliveries.prune(ctx.config.webhooks.retentionDays)
    },
  }
}
