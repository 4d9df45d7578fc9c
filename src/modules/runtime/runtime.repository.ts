/**
 * The runtime's rows of a SCO: its state (`sco_states`) and its launches (`sco_deliveries`).
 * Every function takes the tenant scope and filters by `tenant_id` and `mode`. The commit path's
 * statements are `preparedQuery`s of fixed shape (docs/architecture.md, "Runtime commits"): the
 * scope is two more parameters, not another statement. The SCO's record is in
 * `sco-values.repository.ts`, shared data and global objectives in `shared-stores.repository.ts`.
 */
import { preparedQuery } from '../../infra/db/prepared-query.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { ScoDeliveriesTable, ScoStatesTable } from '../../infra/db/tables/sessions.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

interface Scoped {
  tenantId: string
  mode: TenantScope['mode']
}

const scoStatesOfSession = preparedQuery((db, p: Scoped & { sessionId: string }) =>
  db
    .selectFrom('sco_states')
    .selectAll()
    .where('tenant_id', '=', p.tenantId)
    .where('mode', '=', p.mode)
    .where('session_id', '=', p.sessionId),
)

export async function findScoStates(
  db: Executor,
  scope: TenantScope,
  sessionId: string,
): Promise<ScoStatesTable[]> {
  return scoStatesOfSession.all(db, { tenantId: scope.tenantId, mode: scope.mode, sessionId })
}

/** Inserts or rewrites a SCO row; its tenant and mode are the scope's, whatever `row` says. */
export async function upsertScoState(
  db: Executor,
  scope: TenantScope,
  row: ScoStatesTable,
): Promise<void> {
  const { session_id, item_id, tenant_id, mode, ...changes } = row
  await db
    .insertInto('sco_states')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .onConflict((oc) =>
      oc
        .columns(['session_id', 'item_id'])
        .doUpdateSet(changes)
        .where('sco_states.tenant_id', '=', scope.tenantId)
        .where('sco_states.mode', '=', scope.mode),
    )
    .execute()
}

/** A SCO row's columns as the runtime writes them (everything but its keys). */
function scoStateColumns(p: ScoStatesTable) {
  return {
    carry: p.carry,
    completion_status: p.completion_status,
    success_status: p.success_status,
    score_scaled: p.score_scaled,
    score_raw: p.score_raw,
    score_min: p.score_min,
    score_max: p.score_max,
    progress_measure: p.progress_measure,
    total_time: p.total_time,
    suspended: p.suspended,
    launched: p.launched,
    delivery_id: p.delivery_id,
    delivery_seq: p.delivery_seq,
    data_chars: p.data_chars,
    updated_at: p.updated_at,
  }
}

type ScoStateWrite = ScoStatesTable & { scope_tenant: string; scope_mode: TenantScope['mode'] }

function scoped(scope: TenantScope, row: ScoStatesTable): ScoStateWrite {
  return { ...row, scope_tenant: scope.tenantId, scope_mode: scope.mode }
}

const writeScoState = preparedQuery((db, p: ScoStateWrite) =>
  db
    .updateTable('sco_states')
    .set(scoStateColumns(p))
    .where('tenant_id', '=', p.scope_tenant)
    .where('mode', '=', p.scope_mode)
    .where('session_id', '=', p.session_id)
    .where('item_id', '=', p.item_id),
)

/** Rewrites an existing SCO row (one fixed statement, compiled once). */
export async function updateScoState(
  db: Executor,
  scope: TenantScope,
  row: ScoStatesTable,
): Promise<void> {
  await writeScoState.run(db, scoped(scope, row))
}

/** Where a commit expects the SCO's open delivery to be: its id and last applied sequence. */
export interface DeliveryPosition {
  deliveryId: string
  seq: number
}

const advanceScoStateQuery = preparedQuery(
  (db, p: ScoStateWrite & { expected_delivery_id: string; expected_seq: number }) =>
    db
      .updateTable('sco_states')
      .set(scoStateColumns(p))
      .where('tenant_id', '=', p.scope_tenant)
      .where('mode', '=', p.scope_mode)
      .where('session_id', '=', p.session_id)
      .where('item_id', '=', p.item_id)
      .where('delivery_id', '=', p.expected_delivery_id)
      .where('delivery_seq', '=', p.expected_seq),
)

/**
 * Writes a commit's SCO row only if the delivery is still open on it at the expected sequence
 * (compare-and-set): two racing commits cannot both apply, and none applies to a delivery that
 * has ended or been replaced. False when the row did not hold the delivery at that sequence.
 */
export async function advanceScoState(
  db: Executor,
  scope: TenantScope,
  row: ScoStatesTable,
  expected: DeliveryPosition,
): Promise<boolean> {
  const params = {
    ...scoped(scope, row),
    expected_delivery_id: expected.deliveryId,
    expected_seq: expected.seq,
  }
  return (await advanceScoStateQuery.run(db, params)) === 1
}

/** Inserts a launch; its tenant and mode are the scope's. */
export async function insertDelivery(
  db: Executor,
  scope: TenantScope,
  row: ScoDeliveriesTable,
): Promise<void> {
  await db
    .insertInto('sco_deliveries')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
}

const deliveryOfSession = preparedQuery((db, p: Scoped & { sessionId: string; id: string }) =>
  db
    .selectFrom('sco_deliveries')
    .selectAll()
    .where('tenant_id', '=', p.tenantId)
    .where('mode', '=', p.mode)
    .where('session_id', '=', p.sessionId)
    .where('id', '=', p.id),
)

export async function findDelivery(
  db: Executor,
  scope: TenantScope,
  sessionId: string,
  id: string,
): Promise<ScoDeliveriesTable | undefined> {
  return deliveryOfSession.first(db, { tenantId: scope.tenantId, mode: scope.mode, sessionId, id })
}

export async function openDeliveries(
  db: Executor,
  scope: TenantScope,
  sessionId: string,
): Promise<ScoDeliveriesTable[]> {
  return db
    .selectFrom('sco_deliveries')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('session_id', '=', sessionId)
    .where('ended_at', 'is', null)
    .orderBy('created_at')
    .execute()
}

export async function countDeliveries(
  db: Executor,
  scope: TenantScope,
  sessionId: string,
  itemId: string,
): Promise<number> {
  const row = await db
    .selectFrom('sco_deliveries')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('session_id', '=', sessionId)
    .where('item_id', '=', itemId)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/** Ends an open delivery, recording the last commit it applied. */
export async function endDelivery(
  db: Executor,
  scope: TenantScope,
  id: string,
  lastSeq: number,
  at: string,
): Promise<void> {
  await db
    .updateTable('sco_deliveries')
    .set({ last_seq: lastSeq, ended_at: at, updated_at: at })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .execute()
}
