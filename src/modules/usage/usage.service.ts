import type { Executor } from '../../infra/db/schema.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { countActiveLearner, insertActiveLearner } from './usage.repository.ts'

/** Percentages of the plan's active-learner allotment that fire a usage event. */
export const USAGE_THRESHOLDS = [70, 90, 100] as const

/** The active-learner count at which `percent` of `allotment` is reached (rounded up). */
export function thresholdLearners(allotment: number, percent: number): number {
  return Math.ceil((allotment * percent) / 100)
}

/** Billing period: the calendar month in UTC, e.g. `2026-11`. */
export function billingPeriod(at: Date): string {
  return at.toISOString().slice(0, 7)
}

/**
 * Counts `learnerId` as active in this period (once) and, when that moves the count across a
 * threshold, writes `usage.threshold_reached.N` in the caller's transaction. The counter row is
 * incremented atomically, so concurrent launches each see a distinct count and every threshold
 * fires exactly once per period. Test and live are counted apart, like all their data.
 */
export async function recordActiveLearner(
  trx: Executor,
  scope: TenantScope,
  input: { learnerId: string; allotment: number; at: Date },
): Promise<{ activeLearners: number; crossed: number[] }> {
  const period = billingPeriod(input.at)
  const at = input.at.toISOString()
  if (!(await insertActiveLearner(trx, scope, period, input.learnerId, at))) {
    return { activeLearners: -1, crossed: [] }
  }
  const count = await countActiveLearner(trx, scope, period)
  const crossed = USAGE_THRESHOLDS.filter((pct) => {
    const needed = thresholdLearners(input.allotment, pct)
    return count - 1 < needed && count >= needed
  })
  for (const pct of crossed) {
    await recordAuditEvent(trx, scope, {
      type: `usage.threshold_reached.${pct}`,
      entityType: null,
      entityId: null,
      severity: pct === 100 ? 'warn' : 'info',
      // The spec gives usage events the baseline fields only.
      data: {},
      occurredAt: at,
    })
  }
  return { activeLearners: count, crossed }
}
