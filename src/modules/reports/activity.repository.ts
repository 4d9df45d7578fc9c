import { sql } from 'kysely'
import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/*
 * The overview charts' reads: each one grouped statement on an index's leading columns
 * (audit_events_scope; usage_learners' key), whatever the tenant's size.
 */

/** `package.launched` and `session.completed` events per UTC day (`YYYY-MM-DD`) since `since`. */
export async function lifecycleEventsPerDay(
  db: Executor,
  scope: TenantScope,
  since: string,
): Promise<{ type: string; day: string; n: number }[]> {
  const day = sql<string>`substr(occurred_at, 1, 10)`
  const rows = await db
    .selectFrom('audit_events')
    .select(['type', day.as('day'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('occurred_at', '>=', since)
    .where('type', 'in', ['package.launched', 'session.completed'])
    .groupBy(['type', day])
    .execute()
  return rows.map((row) => ({ ...row, n: Number(row.n) }))
}

/** Learners whose first launch of their billing period fell on each UTC day since `since`. */
export async function newLearnersPerDay(
  db: Executor,
  scope: TenantScope,
  since: string,
): Promise<{ day: string; n: number }[]> {
  const day = sql<string>`substr(first_launch_at, 1, 10)`
  const rows = await db
    .selectFrom('usage_learners')
    .select([day.as('day'), (eb) => eb.fn.countAll<number>().as('n')])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('first_launch_at', '>=', since)
    .groupBy(day)
    .execute()
  return rows.map((row) => ({ ...row, n: Number(row.n) }))
}

/** The scope's latest audit events, newest first. */
export async function latestEvents(db: Executor, scope: TenantScope, limit: number) {
  return db
    .selectFrom('audit_events')
    .select(['id', 'type', 'entity_type', 'entity_id', 'severity', 'occurred_at'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .orderBy('occurred_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute()
}
