import type { AppContext } from '../context.ts'
import type { TaskDefinition } from '../infra/queue/index.ts'

/**
 * `webhooks.deliver` (payload `{lane}`): one sender run — sends due deliveries until none is
 * left or its budget is spent, then queues its lane's next run. Its lease covers the budget plus
 * one full 30 s attempt and a margin; each delivery also holds its own lease.
 */
export function webhookDeliverTask(ctx: AppContext): TaskDefinition {
  return {
    leaseSeconds: ctx.services.webhooks.timing.senderLeaseSeconds,
    // A failed run (a database error) is retried soon; deliveries keep their own schedule.
    retryDelaySeconds: (attempt) => Math.min(5 * attempt, 60),
    async handler(payload, { signal }) {
      const raw = (payload as { lane?: unknown } | null)?.lane
      const lane = typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 ? raw : 0
      await ctx.services.webhooks.deliveries.send(lane, signal)
    },
  }
}
