import type { Executor } from '../../infra/db/schema.ts'
import type {
  ScoDeliveriesTable,
  ScoStatesTable,
  SessionsTable,
} from '../../infra/db/tables/sessions.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

export async function insertSession(db: Executor, row: SessionsTable): Promise<void> {
  await db.insertInto('sessions').values(row).execute()
}

export async function findSession(
  db: Executor,
  scope: TenantScope,
  id: string,
): Promise<SessionsTable | undefined> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** For runtime calls, whose signed token already names the session (and so its tenant). */
export async function findSessionForRuntime(
  db: Executor,
  id: string,
): Promise<SessionsTable | undefined> {
  return db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function findOpenSession(
  db: Executor,
  scope: TenantScope,
  key: { packageId: string; learnerId: string; dispatchId: string | null },
): Promise<SessionsTable | undefined> {
  let query = db
    .selectFrom('sessions')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('package_id', '=', key.packageId)
    .where('learner_id', '=', key.learnerId)
    .where('open', '=', 1)
  query = key.dispatchId
    ? query.where('dispatch_id', '=', key.dispatchId)
    : query.where('dispatch_id', 'is', null)
  return query.executeTakeFirst()
}

export async function latestAttemptNumber(
  db: Executor,
  scope: TenantScope,
  packageId: string,
  learnerId: string,
): Promise<number> {
  const row = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.max('attempt_number').as('n'))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('package_id', '=', packageId)
    .where('learner_id', '=', learnerId)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

export async function updateSession(
  db: Executor,
  id: string,
  changes: Partial<Omit<SessionsTable, 'id' | 'tenant_id' | 'mode'>>,
): Promise<void> {
  await db.updateTable('sessions').set(changes).where('id', '=', id).execute()
}

export async function findScoStates(db: Executor, sessionId: string): Promise<ScoStatesTable[]> {
  return db.selectFrom('sco_states').selectAll().where('session_id', '=', sessionId).execute()
}

export async function upsertScoState(db: Executor, row: ScoStatesTable): Promise<void> {
  const { session_id, item_id, tenant_id, mode, ...changes } = row
  await db
    .insertInto('sco_states')
    .values(row)
    .onConflict((oc) => oc.columns(['session_id', 'item_id']).doUpdateSet(changes))
    .execute()
}

export async function insertDelivery(db: Executor, row: ScoDeliveriesTable): Promise<void> {
  await db.insertInto('sco_deliveries').values(row).execute()
}

export async function findDelivery(
  db: Executor,
  sessionId: string,
  id: string,
): Promise<ScoDeliveriesTable | undefined> {
  return db
    .selectFrom('sco_deliveries')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function openDeliveries(
  db: Executor,
  sessionId: string,
): Promise<ScoDeliveriesTable[]> {
  return db
    .selectFrom('sco_deliveries')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where('ended_at', 'is', null)
    .orderBy('created_at')
    .execute()
}

export async function countDeliveries(
  db: Executor,
  sessionId: string,
  itemId: string,
): Promise<number> {
  const row = await db
    .selectFrom('sco_deliveries')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('session_id', '=', sessionId)
    .where('item_id', '=', itemId)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/**
 * Advances a delivery's sequence number only if it is still where the caller read it
 * (compare-and-set): two racing commits cannot both apply.
 */
export async function advanceDelivery(
  db: Executor,
  id: string,
  from: number,
  to: number,
  changes: { ended_at?: string | null; updated_at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('sco_deliveries')
    .set({ last_seq: to, ...changes })
    .where('id', '=', id)
    .where('last_seq', '=', from)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
