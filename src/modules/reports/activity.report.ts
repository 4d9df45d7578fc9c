import type { Executor } from '../../infra/db/schema.ts'
import { findPlan, findTenant } from '../tenants/tenant.cross-tenant.repository.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { billingPeriod, thresholdLearners, USAGE_THRESHOLDS } from '../usage/usage.service.ts'
import { latestEvents, lifecycleEventsPerDay, newLearnersPerDay } from './activity.repository.ts'
import { activeLearners } from './overview.repository.ts'

/** How many days the overview's charts cover by default: 30 (the API allows 7–90). */
export const ACTIVITY_DAYS = 30

export interface DailyActivity {
  /** `YYYY-MM-DD` (UTC), oldest first, one entry per day of the window (zeros included). */
  day: string
  launches: number
  completions: number
  /** Learners counted active for the first time in the billing period on this day. */
  new_active_learners: number
}

export interface UsagePicture {
  billing_period: string
  active_learners: number
  /** The plan's active learners per period; null when the tenant has no plan. */
  allotment: number | null
  /** USAGE_THRESHOLDS (70, 90, 100 %) as learner counts of the allotment, with whether reached. */
  thresholds: { percent: number; learners: number; reached: boolean }[]
}

export interface RecentEvent {
  id: string
  type: string
  entity_type: string | null
  entity_id: string | null
  severity: 'info' | 'warn'
  occurred_at: string
}

const DAY_MS = 86_400_000

function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10)
}

/**
 * Launches (`package.launched` events), completions (`session.completed`) and newly active
 * learners per UTC day of the `days` days up to `now`, zeros included.
 */
export async function dailyActivity(
  db: Executor,
  scope: TenantScope,
  now: Date,
  days = ACTIVITY_DAYS,
): Promise<DailyActivity[]> {
  const first = new Date(Date.parse(`${dayOf(now)}T00:00:00.000Z`) - (days - 1) * DAY_MS)
  const since = first.toISOString()
  const [events, learners] = await Promise.all([
    lifecycleEventsPerDay(db, scope, since),
    newLearnersPerDay(db, scope, since),
  ])
  const out = new Map<string, DailyActivity>()
  for (let i = 0; i < days; i++) {
    const d = dayOf(new Date(first.getTime() + i * DAY_MS))
    out.set(d, { day: d, launches: 0, completions: 0, new_active_learners: 0 })
  }
  for (const row of events) {
    const entry = out.get(row.day)
    if (!entry) continue
    if (row.type === 'package.launched') entry.launches = row.n
    else entry.completions = row.n
  }
  for (const row of learners) {
    const entry = out.get(row.day)
    if (entry) entry.new_active_learners = row.n
  }
  return [...out.values()]
}

/** The billing period's active learners against the plan's allotment and its thresholds. */
export async function usagePicture(
  db: Executor,
  scope: TenantScope,
  now: Date,
): Promise<UsagePicture> {
  const period = billingPeriod(now)
  const [active, tenant] = await Promise.all([
    activeLearners(db, scope, period),
    findTenant(db, scope.tenantId),
  ])
  const plan = tenant ? await findPlan(db, tenant.plan_id) : undefined
  const allotment = plan ? Number(plan.active_learner_allotment) : null
  const thresholds =
    allotment === null
      ? []
      : USAGE_THRESHOLDS.map((percent) => {
          const learners = thresholdLearners(allotment, percent)
          return { percent, learners, reached: active >= learners }
        })
  return { billing_period: period, active_learners: active, allotment, thresholds }
}

/** The scope's latest audit events, newest first (the overview's "recent events"). */
export async function recentEvents(
  db: Executor,
  scope: TenantScope,
  limit = 20,
): Promise<RecentEvent[]> {
  return latestEvents(db, scope, limit)
}
