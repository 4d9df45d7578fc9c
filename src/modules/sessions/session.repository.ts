import { PostgresAdapter, sql } from 'kysely'
import { preparedQuery } from '../../infra/db/prepared-query.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type {
  ScoDeliveriesTable,
  ScoStatesTable,
  ScoValuesTable,
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
const sessionById = preparedQuery((db, p: { id: string }) =>
  db.selectFrom('sessions').selectAll().where('id', '=', p.id),
)

export async function findSessionForRuntime(
  db: Executor,
  id: string,
): Promise<SessionsTable | undefined> {
  return sessionById.first(db, { id })
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

const scoStatesOfSession = preparedQuery((db, p: { sessionId: string }) =>
  db.selectFrom('sco_states').selectAll().where('session_id', '=', p.sessionId),
)

export async function findScoStates(db: Executor, sessionId: string): Promise<ScoStatesTable[]> {
  return scoStatesOfSession.all(db, { sessionId })
}

export async function upsertScoState(db: Executor, row: ScoStatesTable): Promise<void> {
  const { session_id, item_id, tenant_id, mode, ...changes } = row
  await db
    .insertInto('sco_states')
    .values(row)
    .onConflict((oc) => oc.columns(['session_id', 'item_id']).doUpdateSet(changes))
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

const writeScoState = preparedQuery((db, p: ScoStatesTable) =>
  db
    .updateTable('sco_states')
    .set(scoStateColumns(p))
    .where('session_id', '=', p.session_id)
    .where('item_id', '=', p.item_id),
)

/** Rewrites an existing SCO row (one fixed statement, compiled once). */
export async function updateScoState(db: Executor, row: ScoStatesTable): Promise<void> {
  await writeScoState.run(db, row)
}

/** Where a commit expects the SCO's open delivery to be: its id and last applied sequence. */
export interface DeliveryPosition {
  deliveryId: string
  seq: number
}

const advanceScoStateQuery = preparedQuery(
  (db, p: ScoStatesTable & { expected_delivery_id: string; expected_seq: number }) =>
    db
      .updateTable('sco_states')
      .set(scoStateColumns(p))
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
  row: ScoStatesTable,
  expected: DeliveryPosition,
): Promise<boolean> {
  const params = { ...row, expected_delivery_id: expected.deliveryId, expected_seq: expected.seq }
  return (await advanceScoStateQuery.run(db, params)) === 1
}

const writeProgress = preparedQuery((db, p: SessionsTable) =>
  db
    .updateTable('sessions')
    .set({
      completion_status: p.completion_status,
      success_status: p.success_status,
      score_scaled: p.score_scaled,
      score_raw: p.score_raw,
      score_min: p.score_min,
      score_max: p.score_max,
      progress_percent: p.progress_percent,
      session_time: p.session_time,
      time_spent_seconds: p.time_spent_seconds,
      suspended: p.suspended,
      current_item_id: p.current_item_id,
      updated_at: p.updated_at,
      completed_at: p.completed_at,
      completed_event_at: p.completed_event_at,
      failed_event_at: p.failed_event_at,
    })
    .where('id', '=', p.id),
)

/** Writes the runtime's columns of a session (progress, scores, time, current item). */
export async function saveSessionProgress(db: Executor, row: SessionsTable): Promise<void> {
  await writeProgress.run(db, row)
}

export async function insertDelivery(db: Executor, row: ScoDeliveriesTable): Promise<void> {
  await db.insertInto('sco_deliveries').values(row).execute()
}

const deliveryOfSession = preparedQuery((db, p: { sessionId: string; id: string }) =>
  db
    .selectFrom('sco_deliveries')
    .selectAll()
    .where('session_id', '=', p.sessionId)
    .where('id', '=', p.id),
)

export async function findDelivery(
  db: Executor,
  sessionId: string,
  id: string,
): Promise<ScoDeliveriesTable | undefined> {
  return deliveryOfSession.first(db, { sessionId, id })
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

/** Ends an open delivery, recording the last commit it applied. */
export async function endDelivery(
  db: Executor,
  id: string,
  lastSeq: number,
  at: string,
): Promise<void> {
  await db
    .updateTable('sco_deliveries')
    .set({ last_seq: lastSeq, ended_at: at, updated_at: at })
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .execute()
}

export type ScoValueRow = Pick<ScoValuesTable, 'element' | 'value' | 'delivery_id'>

const scoValuesQuery = preparedQuery((db, p: { sessionId: string; itemId: string }) =>
  db
    .selectFrom('sco_values')
    .select(['element', 'value', 'delivery_id'])
    .where('session_id', '=', p.sessionId)
    .where('item_id', '=', p.itemId),
)

/** One SCO's record, element by element. */
export async function findScoValues(
  db: Executor,
  sessionId: string,
  itemId: string,
): Promise<ScoValueRow[]> {
  return scoValuesQuery.all(db, { sessionId, itemId })
}

/** The records of every SCO of these sessions (for reading sessions). */
export async function findSessionValues(
  db: Executor,
  sessionIds: readonly string[],
): Promise<ScoValuesTable[]> {
  if (sessionIds.length === 0) return []
  return db
    .selectFrom('sco_values')
    .selectAll()
    .where('session_id', 'in', sessionIds)
    .orderBy('session_id')
    .orderBy('item_id')
    .execute()
}

interface ValuesWrite {
  session_id: string
  item_id: string
  delivery_id: string | null
  /** JSON object: element → value. */
  values: string
}

/**
 * Writes elements of a SCO's record in one fixed statement, however many there are: the JSON
 * object is expanded by the database (`json_each` / `json_each_text`), so the statement is
 * prepared once and a commit costs what it changed. `replace`: commits overwrite; otherwise
 * only missing elements are added (the LMS's launch values never replace recorded ones).
 */
function valuesUpsert(replace: boolean) {
  return preparedQuery((db, p: ValuesWrite) => {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter
    const rows = postgres
      ? sql`select cast(${p.session_id} as text), cast(${p.item_id} as text), key, value,
          cast(${p.delivery_id} as text) from json_each_text(cast(${p.values} as json))`
      : sql`select ${p.session_id}, ${p.item_id}, key, value, ${p.delivery_id}
          from json_each(${p.values}) where true`
    const conflict = replace
      ? sql`do update set value = excluded.value, delivery_id = excluded.delivery_id`
      : sql`do nothing`
    const query = sql`insert into sco_values (session_id, item_id, element, value, delivery_id)
      ${rows} on conflict (session_id, item_id, element) ${conflict}`
    return { compile: () => query.compile(db) }
  })
}

const replaceValues = valuesUpsert(true)
const addMissingValues = valuesUpsert(false)

/** Records a commit's changed elements as written by `deliveryId`. */
export async function writeScoValues(
  db: Executor,
  key: { sessionId: string; itemId: string; deliveryId: string | null },
  values: Readonly<Record<string, string>>,
  mode: 'replace' | 'add-missing' = 'replace',
): Promise<void> {
  const params = {
    session_id: key.sessionId,
    item_id: key.itemId,
    delivery_id: key.deliveryId,
    values: JSON.stringify(values),
  }
  await (mode === 'replace' ? replaceValues : addMissingValues).run(db, params)
}
