/**
 * The `sessions` table. Every function takes the tenant scope and filters by `tenant_id` and
 * `mode`, so a foreign id reads and writes nothing; the one lookup by id alone, for calls whose
 * signed token names the session, is in `session.cross-tenant.repository.ts`.
 */
import { PostgresAdapter, type RawBuilder, type SqlBool, sql } from 'kysely'
import { type KeysetPosition, newestFirstPage, type Page, pageOf } from '../../infra/db/keyset.ts'
import { preparedQuery } from '../../infra/db/prepared-query.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/** Inserts a session; its tenant and mode are the scope's, whatever `row` says. */
export async function insertSession(
  db: Executor,
  scope: TenantScope,
  row: SessionsTable,
): Promise<void> {
  await db
    .insertInto('sessions')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
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

/**
 * The learner's highest attempt number for the package (0 before the first). One seek on
 * `sessions_learner_attempt` (migration 0018), not an aggregate over the package's sessions: a
 * launch's write transaction must not slow down as the package gathers learners (issue 15).
 */
export async function latestAttemptNumber(
  db: Executor,
  scope: TenantScope,
  packageId: string,
  learnerId: string,
): Promise<number> {
  const row = await latestAttemptQuery(db, scope, packageId, learnerId).executeTakeFirst()
  return Number(row?.attempt_number ?? 0)
}

/** The query of `latestAttemptNumber`, exported for the test that reads its plan. */
export function latestAttemptQuery(
  db: Executor,
  scope: TenantScope,
  packageId: string,
  learnerId: string,
) {
  return db
    .selectFrom('sessions')
    .select('attempt_number')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('package_id', '=', packageId)
    .where('learner_id', '=', learnerId)
    .orderBy('attempt_number', 'desc')
    .limit(1)
}

export async function updateSession(
  db: Executor,
  scope: TenantScope,
  id: string,
  changes: Partial<Omit<SessionsTable, 'id' | 'tenant_id' | 'mode'>>,
): Promise<void> {
  await db
    .updateTable('sessions')
    .set(changes)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .execute()
}

type ProgressWrite = SessionsTable & { scope_tenant: string; scope_mode: TenantScope['mode'] }

const writeProgress = preparedQuery((db, p: ProgressWrite) =>
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
    .where('tenant_id', '=', p.scope_tenant)
    .where('mode', '=', p.scope_mode)
    .where('id', '=', p.id),
)

/** Writes the runtime's columns of a session (progress, scores, time, current item). */
export async function saveSessionProgress(
  db: Executor,
  scope: TenantScope,
  row: SessionsTable,
): Promise<void> {
  await writeProgress.run(db, { ...row, scope_tenant: scope.tenantId, scope_mode: scope.mode })
}

/** Writes the attempt's sequencing tracking state (JSON) on its session row. */
export async function saveSequencingState(
  db: Executor,
  scope: TenantScope,
  sessionId: string,
  json: string,
): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ sequencing_state: json })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', sessionId)
    .execute()
}

/** Filters of a session list (`GET /sessions`, CSV). */
export interface SessionListFilter {
  package_id?: string
  learner_id?: string
  dispatch_id?: string
  completion_status?: SessionsTable['completion_status']
  success_status?: SessionsTable['success_status']
  /** Sessions started at or after this instant. */
  from?: string
  /** Sessions started before this instant. */
  to?: string
  /** Default `created_at`. */
  sort?: 'created_at' | 'updated_at'
  /** Default `desc`. */
  order?: 'asc' | 'desc'
}

/**
 * One page of sessions after `after` (the sort column's value and the id of the previous page's
 * last row) in list order. The cursor is a row-value comparison on `(sort column, id)`, a range
 * seek on the index that leads with the filter: a `sessions_scope_*` index (migration 0020), or
 * on PostgreSQL by `updated_at` a `session_activity` index (0026).
 */
export async function listSessions(
  db: Executor,
  scope: TenantScope,
  filter: SessionListFilter,
  limit: number,
  after?: KeysetPosition,
): Promise<Page<SessionsTable>> {
  const sort = filter.sort ?? 'created_at'
  const rows = await listSessionsQuery(db, scope, filter, limit, after).execute()
  return pageOf(rows, limit, (row) => row[sort])
}

/** The query of `listSessions` (`limit + 1` rows), exported for the test that reads its plan. */
export function listSessionsQuery(
  db: Executor,
  scope: TenantScope,
  filter: SessionListFilter,
  limit: number,
  after?: KeysetPosition,
) {
  const sort = filter.sort ?? 'created_at'
  if (sort === 'updated_at' && db.getExecutor().adapter instanceof PostgresAdapter) {
    return byActivityQuery(db, scope, filter, limit, after)
  }
  let query = db
    .selectFrom('sessions')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
  if (filter.package_id) query = query.where('package_id', '=', filter.package_id)
  for (const condition of filterConditions(filter, 'sessions')) query = query.where(condition)
  if ((filter.order ?? 'desc') === 'desc') return newestFirstPage(query, after, limit, sort)
  // Oldest first: the mirror of `newestFirstPage`, the same index walked forwards.
  const sortColumn = sql.ref(sort)
  if (after) query = query.where(sql<SqlBool>`(${sortColumn}, id) > (${after.key}, ${after.id})`)
  return query
    .orderBy(sortColumn, 'asc')
    .orderBy(sql`id`, 'asc')
    .limit(limit + 1)
}

/**
 * PostgreSQL's list by `updated_at`: a seek on `session_activity`'s index (by scope, or scope
 * and package), each row's session read by its primary key.
 */
function byActivityQuery(
  db: Executor,
  scope: TenantScope,
  filter: SessionListFilter,
  limit: number,
  after?: KeysetPosition,
) {
  let query = db
    .selectFrom('session_activity as a')
    .innerJoin('sessions as s', 's.id', 'a.session_id')
    .selectAll('s')
    .where('a.tenant_id', '=', scope.tenantId)
    .where('a.mode', '=', scope.mode)
  if (filter.package_id) query = query.where('a.package_id', '=', filter.package_id)
  for (const condition of filterConditions(filter, 's')) query = query.where(condition)
  const order = filter.order ?? 'desc'
  if (after) {
    const op = sql.raw(order === 'desc' ? '<' : '>')
    query = query.where(
      sql<SqlBool>`(a.updated_at, a.session_id) ${op} (${after.key}, ${after.id})`,
    )
  }
  return query
    .orderBy('a.updated_at', order)
    .orderBy('a.session_id', order)
    .limit(limit + 1)
}

/** The list's filters besides the scope and the package, on the columns of `table`. */
function filterConditions(filter: SessionListFilter, table: 'sessions' | 's') {
  const column = (name: keyof SessionsTable) => sql.ref(`${table}.${name}`)
  const conditions: RawBuilder<SqlBool>[] = []
  const equal = (name: keyof SessionsTable, value: string | undefined) => {
    if (value) conditions.push(sql<SqlBool>`${column(name)} = ${value}`)
  }
  equal('learner_id', filter.learner_id)
  equal('dispatch_id', filter.dispatch_id)
  equal('completion_status', filter.completion_status)
  equal('success_status', filter.success_status)
  if (filter.from) {
    conditions.push(sql<SqlBool>`${column('created_at')} >= ${new Date(filter.from).toISOString()}`)
  }
  if (filter.to) {
    conditions.push(sql<SqlBool>`${column('created_at')} < ${new Date(filter.to).toISOString()}`)
  }
  return conditions
}
