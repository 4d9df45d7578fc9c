import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { billingPeriod } from '../usage/usage.service.ts'
import * as repo from './overview.repository.ts'

/** The window of "recent" on the overview: completions and failing webhooks; 7 days. */
export const RECENT_DAYS = 7

export interface Overview {
  packages: number
  /** Active learners in the current billing period (the calendar month in UTC). */
  active_learners: number
  billing_period: string
  sessions_completed: number
  failing_webhooks: number
  since: string
}

/** The dashboard's landing figures at `now`, in the scope's mode. */
export async function overview(db: Executor, scope: TenantScope, now: Date): Promise<Overview> {
  const since = new Date(now.getTime() - RECENT_DAYS * 86_400_000).toISOString()
  const period = billingPeriod(now)
  const [packages, active, completed, failing] = await Promise.all([
    repo.countPackages(db, scope),
    repo.activeLearners(db, scope, period),
    repo.completedSince(db, scope, since),
    repo.failingEndpoints(db, scope, since),
  ])
  return {
    packages,
    active_learners: active,
    billing_period: period,
    sessions_completed: completed,
    failing_webhooks: failing,
    since,
  }
}
