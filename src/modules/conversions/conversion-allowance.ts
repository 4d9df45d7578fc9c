import type { Executor } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import { findPlan, findTenant } from '../tenants/tenant.cross-tenant.repository.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { allowanceUsed, consumeAllowance } from './conversion.repository.ts'

/** The calendar month (UTC) an allowance counts in, e.g. `2026-11`. */
export function allowancePeriod(at: Date): string {
  return at.toISOString().slice(0, 7)
}

/** First instant of the next calendar month (UTC): when the allowance resets. */
export function allowanceResetsAt(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1))
}

/** The tenant's monthly conversions; null means unlimited. */
export async function monthlyAllowance(db: Executor, tenantId: string): Promise<number | null> {
  const tenant = await findTenant(db, tenantId)
  const plan = tenant ? await findPlan(db, tenant.plan_id) : undefined
  const limit = plan?.monthly_conversions
  return limit === null || limit === undefined ? null : Number(limit)
}

export function allowanceExhausted(limit: number, at: Date): AppError {
  const resetsAt = allowanceResetsAt(at)
  const month = at.toLocaleString('en', { month: 'long', year: 'numeric', timeZone: 'UTC' })
  const day = resetsAt.toISOString().slice(0, 10)
  return new AppError(
    'quota_exceeded',
    `This account's plan includes ${limit} conversion${limit === 1 ? '' : 's'} a month and ` +
      `${limit === 1 ? 'it has' : 'all have'} been used for ${month}. The allowance resets on ` +
      `${day} at 00:00 UTC; upgrade the plan to convert more now.`,
    {
      limit,
      period: allowancePeriod(at),
      resets_at: resetsAt.toISOString(),
      retry_after_seconds: Math.max(1, Math.ceil((resetsAt.getTime() - at.getTime()) / 1000)),
    },
  )
}

/**
 * Takes one conversion from the tenant's monthly allowance (both modes count: a conversion costs
 * the same compute either way). Returns the period it counts in, null for unlimited plans;
 * throws `quota_exceeded` (429) naming the reset date when the allowance is used up.
 */
export async function takeAllowance(
  db: Executor,
  scope: TenantScope,
  at: Date,
): Promise<string | null> {
  const limit = await monthlyAllowance(db, scope.tenantId)
  if (limit === null) return null
  const period = allowancePeriod(at)
  if (!(await consumeAllowance(db, scope, period, limit))) throw allowanceExhausted(limit, at)
  return period
}

/**
 * Read-only early answer, before the upload is stored: refuses when the allowance is already
 * used up. `takeAllowance` stays the authority (concurrent requests may pass this check).
 */
export async function checkAllowance(db: Executor, scope: TenantScope, at: Date): Promise<void> {
  const limit = await monthlyAllowance(db, scope.tenantId)
  if (limit === null) return
  if ((await allowanceUsed(db, scope, allowancePeriod(at))) >= limit) {
    throw allowanceExhausted(limit, at)
  }
}
