import { sql } from 'kysely'
import { type KeysetPosition, newestFirstPage } from '../../infra/db/keyset.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { DispatchesTable, DispatchLifecycle } from '../../infra/db/tables/dispatches.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import type { DispatchStatus } from './dispatch.state-machine.ts'

/*
 * Every function takes the scope and filters by it (DESIGN §5); the content origin's lookup by a
 * signed token and the expiry job's queries are in dispatch.cross-tenant.repository.ts.
 */

/** Stores a dispatch of `scope` (the row's tenant and mode are the scope's). */
export async function insertDispatch(
  db: Executor,
  scope: TenantScope,
  row: DispatchesTable,
): Promise<void> {
  await db
    .insertInto('dispatches')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
}

export async function replaceTags(
  db: Executor,
  scope: TenantScope,
  dispatchId: string,
  tags: readonly string[],
): Promise<void> {
  await db.deleteFrom('dispatch_tags').where('dispatch_id', '=', dispatchId).execute()
  if (tags.length === 0) return
  await db
    .insertInto('dispatch_tags')
    .values(
      tags.map((tag) => ({
        dispatch_id: dispatchId,
        tenant_id: scope.tenantId,
        mode: scope.mode,
        tag,
      })),
    )
    .execute()
}

/** A dispatch of the scope, deleted ones included (the caller decides what they mean). */
export async function findDispatch(
  db: Executor,
  scope: TenantScope,
  id: string,
): Promise<DispatchesTable | undefined> {
  return db
    .selectFrom('dispatches')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .executeTakeFirst()
}

export interface DispatchListFilter {
  limit: number
  packageId?: string
  tag?: string
  status?: Exclude<DispatchStatus, 'deleted'>
  now: string
  /** Keyset position: rows strictly older than this (created_at, id) pair. */
  after?: KeysetPosition
}

/** Newest first, deleted dispatches never; `limit + 1` rows so the caller sees a next page. */
export async function listDispatches(
  db: Executor,
  scope: TenantScope,
  filter: DispatchListFilter,
): Promise<DispatchesTable[]> {
  let query = db
    .selectFrom('dispatches')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('status', '!=', 'deleted')
  if (filter.packageId) query = query.where('package_id', '=', filter.packageId)
  if (filter.tag) {
    const tag = filter.tag
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('dispatch_tags')
          .select('dispatch_tags.tag')
          .whereRef('dispatch_tags.dispatch_id', '=', 'dispatches.id')
          .where('dispatch_tags.tag', '=', tag),
      ),
    )
  }
  const { now } = filter
  switch (filter.status) {
    case undefined:
      break
    case 'archived':
      query = query.where('status', '=', 'archived')
      break
    case 'expired':
      query = query
        .where('status', 'in', ['active', 'paused'])
        .where('expires_at', 'is not', null)
        .where('expires_at', '<=', now)
      break
    case 'active':
    case 'paused':
      query = query
        .where('status', '=', filter.status)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      break
  }
  return newestFirstPage(query, filter.after, filter.limit).execute()
}

/**
 * Changes a dispatch only if its lifecycle is still the one the caller read (compare-and-set),
 * so two concurrent transitions cannot both apply. Returns whether the row changed.
 */
export async function updateDispatchIf(
  db: Executor,
  scope: TenantScope,
  id: string,
  expected: { status: DispatchLifecycle; updatedAt: string },
  changes: Partial<Omit<DispatchesTable, 'id' | 'tenant_id' | 'mode' | 'package_id'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('dispatches')
    .set(changes)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .where('status', '=', expected.status)
    .where('updated_at', '=', expected.updatedAt)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Distinct learners with a completed (or passed) session, per dispatch. */
export async function completionCounts(
  db: Executor,
  scope: TenantScope,
  dispatchIds: readonly string[],
): Promise<Map<string, number>> {
  if (dispatchIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('sessions')
    .select((eb) => ['dispatch_id', eb.fn.count<number>(sql`distinct learner_id`).as('n')])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('dispatch_id', 'in', dispatchIds)
    .where((eb) =>
      eb.or([eb('completion_status', '=', 'completed'), eb('success_status', '=', 'passed')]),
    )
    .groupBy('dispatch_id')
    .execute()
  return new Map(rows.map((r) => [r.dispatch_id as string, Number(r.n)]))
}

export type Admission = 'new' | 'returning' | 'full'

/**
 * Takes (or finds) the learner's licence seat. Race-free on both databases: the seat is a unique
 * (dispatch, learner) row, and a new seat must also win a conditional increment of the
 * dispatch's learner count that can never pass the limit (PostgreSQL re-checks the condition on
 * the row a concurrent transaction just updated; SQLite runs writers one at a time). On `full`
 * the caller must roll the transaction back so the seat row goes too.
 */
export async function admitLearner(
  trx: Executor,
  scope: TenantScope,
  dispatch: DispatchesTable,
  learnerId: string,
  at: string,
): Promise<Admission> {
  const inserted = await trx
    .insertInto('dispatch_learners')
    .values({
      dispatch_id: dispatch.id,
      learner_id: learnerId,
      tenant_id: scope.tenantId,
      mode: scope.mode,
      first_launch_at: at,
      last_launch_at: at,
      launch_count: 1,
    })
    .onConflict((oc) => oc.columns(['dispatch_id', 'learner_id']).doNothing())
    .executeTakeFirst()
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
    await trx
      .updateTable('dispatch_learners')
      .set((eb) => ({ last_launch_at: at, launch_count: eb('launch_count', '+', 1) }))
      .where('tenant_id', '=', scope.tenantId)
      .where('mode', '=', scope.mode)
      .where('dispatch_id', '=', dispatch.id)
      .where('learner_id', '=', learnerId)
      .execute()
    return 'returning'
  }
  const seat = await trx
    .updateTable('dispatches')
    .set((eb) => ({ learner_count: eb('learner_count', '+', 1) }))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', dispatch.id)
    .where((eb) =>
      eb.or([eb('license_limit', 'is', null), eb('learner_count', '<', eb.ref('license_limit'))]),
    )
    .executeTakeFirst()
  return Number(seat.numUpdatedRows) === 1 ? 'new' : 'full'
}

/** Counts one launch of the dispatch. */
export async function countLaunch(
  trx: Executor,
  scope: TenantScope,
  dispatchId: string,
): Promise<void> {
  await trx
    .updateTable('dispatches')
    .set((eb) => ({ launch_count: eb('launch_count', '+', 1) }))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', dispatchId)
    .execute()
}

/** Counts one refused launch of the dispatch. */
export async function countRefusal(
  trx: Executor,
  scope: TenantScope,
  dispatchId: string,
): Promise<void> {
  await trx
    .updateTable('dispatches')
    .set((eb) => ({ refusal_count: eb('refusal_count', '+', 1) }))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', dispatchId)
    .execute()
}

/** The latest audit events of one type for a dispatch, newest first. */
export async function latestEvents(
  db: Executor,
  scope: TenantScope,
  dispatchId: string,
  type: string,
  limit: number,
) {
  return db
    .selectFrom('audit_events')
    .select(['id', 'data', 'occurred_at'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('entity_type', '=', 'dispatch')
    .where('entity_id', '=', dispatchId)
    .where('type', '=', type)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute()
}
