import type { AppContext } from '../context.ts'
import type { TaskDefinition } from '../infra/queue/index.ts'

/**
 * `events.fanout` (schedule every EVENT_FANOUT_INTERVAL s, default 300): turns new audit events
 * into webhook deliveries and wakes the senders. Safe to run on many workers at once.
 */
export function webhookFanoutTask(ctx: AppContext): TaskDefinition {
  return {
    leaseSeconds: ctx.services.webhooks.timing.fanoutLeaseSeconds,
    async handler() {
      await ctx.services.webhooks.deliveries.fanOut()
    },
  }
}
