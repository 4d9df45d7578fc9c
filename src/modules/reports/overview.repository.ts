import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/*
 * The overview page's figures: one statement each, each on an index's leading columns, so the
 * page costs the same on a tenant with a million sessions as on an empty one.
 */

/** Packages that are not archived. Index: packages_scope_created (tenant_id, mode, …). */
export async function countPackages(db: Executor, scope: TenantScope): Promise<number> {
  const row = await db
    .selectFrom('packages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Active learners of the billing period `period` (`2026-11`): the usage counter the launches
 * maintain (modules/usage), read by its primary key; 0 before the period's first launch.
 */
export async function activeLearners(
  db: Executor,
  scope: TenantScope,
  period: string,
): Promise<number> {
  const row = await db
    .selectFrom('usage_counters')
    .select('active_learners')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('period', '=', period)
    .executeTakeFirst()
  return Number(row?.active_learners ?? 0)
}

/**
 * Sessions that reached completion at or after `since`: their `session.completed` events, which
 * are written once per session. Index: audit_events_scope (tenant_id, mode, occurred_at).
 */
export async function completedSince(
  db: Executor,
  scope: TenantScope,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('occurred_at', '>=', since)
    .where('type', '=', 'session.completed')
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Active endpoints with a failed or dead-lettered delivery created at or after `since`.
 * Indexes: webhook_endpoints_scope_created, then webhook_deliveries_history (endpoint_id,
 * created_at) per endpoint.
 */
export async function failingEndpoints(
  db: Executor,
  scope: TenantScope,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints as e')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('e.tenant_id', '=', scope.tenantId)
    .where('e.mode', '=', scope.mode)
    .where('e.status', '=', 'active')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('webhook_deliveries as d')
          .select('d.id')
          .whereRef('d.endpoint_id', '=', 'e.id')
          .where('d.created_at', '>=', since)
          .where('d.status', 'in', ['failed', 'dead_letter']),
      ),
    )
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
