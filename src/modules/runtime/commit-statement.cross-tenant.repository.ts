/**
 * PostgreSQL: commits' writes as one statement (commit-batches.ts). The commits come as one JSON
 * parameter (a row each); data-modifying CTEs do each commit's SCO row compare-and-set UPDATE,
 * then — for the commits whose compare-and-set matched, and only those — the record's upsert and
 * the session's progress. One statement is atomic without BEGIN/COMMIT and, with
 * `synchronous_commit` on, durable when its answer arrives: one round trip and one WAL flush for
 * the batch, instead of five round trips and a flush per commit. It is a named prepared statement
 * (`namePostgresStatement`) of one shape whatever the batch's size, parsed and planned once per
 * connection; its one result column never changes, so a migration cannot break the plan a
 * connection keeps.
 *
 * The record's rows carry no tenant columns (sco-values.repository.ts scopes them by the
 * session row); here the SCO row's compare-and-set, which filters by the scope's tenant and
 * mode and the session's id, is that proof.
 */
import { CompiledQuery } from 'kysely'
import { namePostgresStatement } from '../../infra/db/named-statements.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { ScoStatesTable, SessionsTable } from '../../infra/db/tables/sessions.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import type { DeliveryPosition } from './runtime.repository.ts'

/** The sco_states columns a commit writes (as `advanceScoState`, runtime.repository.ts). */
const SCO_COLUMNS = [
  'carry',
  'completion_status',
  'success_status',
  'score_scaled',
  'score_raw',
  'score_min',
  'score_max',
  'progress_measure',
  'total_time',
  'suspended',
  'launched',
  'delivery_id',
  'delivery_seq',
  'data_chars',
  'updated_at',
] as const satisfies ReadonlyArray<keyof ScoStatesTable & keyof JsonRow>

/** As `saveSessionProgress` writes them (session.repository.ts). */
const SESSION_COLUMNS = [
  'completion_status',
  'success_status',
  'score_scaled',
  'score_raw',
  'score_min',
  'score_max',
  'progress_percent',
  'session_time',
  'time_spent_seconds',
  'suspended',
  'current_item_id',
  'updated_at',
  'completed_at',
  'completed_event_at',
  'failed_event_at',
] as const satisfies ReadonlyArray<keyof SessionsTable & SessionField>

/** One commit as a row of the statement's JSON parameter (a literal: cheap to stringify). */
function jsonRow(w: CommitWrite, i: number) {
  const { row: r, session: s } = w
  return {
    i,
    tenant_id: w.scope.tenantId,
    mode: w.scope.mode,
    session_id: r.session_id,
    item_id: r.item_id,
    expected_delivery: w.expected.deliveryId,
    expected_seq: w.expected.seq,
    changed: wellFormed(w.changed),
    carry: r.carry,
    completion_status: r.completion_status,
    success_status: r.success_status,
    score_scaled: r.score_scaled,
    score_raw: r.score_raw,
    score_min: r.score_min,
    score_max: r.score_max,
    progress_measure: r.progress_measure,
    total_time: r.total_time,
    suspended: r.suspended,
    launched: r.launched,
    delivery_id: r.delivery_id,
    delivery_seq: r.delivery_seq,
    data_chars: r.data_chars,
    updated_at: r.updated_at,
    s_completion_status: s.completion_status,
    s_success_status: s.success_status,
    s_score_scaled: s.score_scaled,
    s_score_raw: s.score_raw,
    s_score_min: s.score_min,
    s_score_max: s.score_max,
    s_progress_percent: s.progress_percent,
    s_session_time: s.session_time,
    s_time_spent_seconds: s.time_spent_seconds,
    s_suspended: s.suspended,
    s_current_item_id: s.current_item_id,
    s_updated_at: s.updated_at,
    s_completed_at: s.completed_at,
    s_completed_event_at: s.completed_event_at,
    s_failed_event_at: s.failed_event_at,
  }
}

/**
 * The values with each lone surrogate replaced by U+FFFD, as a bound text parameter's UTF-8
 * encoding stores it: in JSON it would be a `\ud800` escape, which PostgreSQL refuses.
 */
function wellFormed(values: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  for (const value of Object.values(values)) {
    if (!value.isWellFormed()) {
      return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.toWellFormed()]))
    }
  }
  return values
}

type JsonRow = ReturnType<typeof jsonRow>
/** The session columns the JSON row carries (as `s_<column>`). */
type SessionField = keyof JsonRow extends infer K ? (K extends `s_${infer C}` ? C : never) : never

/** The JSON row's fields with their SQL types: json_to_recordset's column definitions. */
const ROW_TYPES = {
  i: 'int',
  tenant_id: 'text',
  mode: 'text',
  session_id: 'text',
  item_id: 'text',
  expected_delivery: 'text',
  expected_seq: 'int',
  changed: 'json',
  carry: 'text',
  completion_status: 'text',
  success_status: 'text',
  score_scaled: 'float8',
  score_raw: 'float8',
  score_min: 'float8',
  score_max: 'float8',
  progress_measure: 'float8',
  total_time: 'text',
  suspended: 'int',
  launched: 'int',
  delivery_id: 'text',
  delivery_seq: 'int',
  data_chars: 'int',
  updated_at: 'text',
  s_completion_status: 'text',
  s_success_status: 'text',
  s_score_scaled: 'float8',
  s_score_raw: 'float8',
  s_score_min: 'float8',
  s_score_max: 'float8',
  s_progress_percent: 'float8',
  s_session_time: 'text',
  s_time_spent_seconds: 'float8',
  s_suspended: 'int',
  s_current_item_id: 'text',
  s_updated_at: 'text',
  s_completed_at: 'text',
  s_completed_event_at: 'text',
  s_failed_event_at: 'text',
} satisfies Record<keyof JsonRow, string>

const COMMITS_SQL = `with b as (
  select * from json_to_recordset(cast($1 as json)) as b(
    ${Object.entries(ROW_TYPES)
      .map(([field, type]) => `${field} ${type}`)
      .join(', ')})
), sco as (
  update sco_states s set ${SCO_COLUMNS.map((c) => `${c} = b.${c}`).join(', ')}
  from b
  where s.tenant_id = b.tenant_id and s.mode = b.mode and s.session_id = b.session_id
    and s.item_id = b.item_id and s.delivery_id = b.expected_delivery
    and s.delivery_seq = b.expected_seq
  returning b.i
), applied as (
  select b.* from b join sco on sco.i = b.i
), rec as (
  insert into sco_values (session_id, item_id, element, value, delivery_id)
  select a.session_id, a.item_id, e.key, e.value, a.expected_delivery
  from applied a cross join lateral json_each_text(a.changed) e
  on conflict (session_id, item_id, element)
  do update set value = excluded.value, delivery_id = excluded.delivery_id
), ses as (
  update sessions t set ${SESSION_COLUMNS.map((c) => `${c} = a.s_${c}`).join(', ')}
  from applied a
  where t.tenant_id = a.tenant_id and t.mode = a.mode and t.id = a.session_id
)
select i from sco`

namePostgresStatement(COMMITS_SQL)

export interface CommitWrite {
  scope: TenantScope
  /** The SCO's row as the commit leaves it. */
  row: ScoStatesTable
  /**
   * Where the commit expects the delivery (the compare-and-set); the record elements are
   * written as this delivery's.
   */
  expected: DeliveryPosition
  /** The record elements the commit changed. */
  changed: Readonly<Record<string, string>>
  /** The session row as the commit leaves it. */
  session: SessionsTable
}

/**
 * Cross-tenant because one statement carries the commits that arrived together, whoever's they
 * are (batching across tenants is the point: one round trip and one WAL flush); each commit
 * carries its own scope, and every row it touches is matched by that scope's tenant and mode.
 *
 * Writes commits' SCO rows, records and session progress in one statement, each commit only if
 * its delivery is still open on its SCO row at the expected sequence. At most one commit per
 * session (a session's row is written once per statement). The indexes of the commits applied;
 * the others wrote nothing.
 */
export async function writeCommits(
  db: Executor,
  writes: readonly CommitWrite[],
): Promise<Set<number>> {
  const result = await db.executeQuery<{ i: number }>(
    CompiledQuery.raw(COMMITS_SQL, [JSON.stringify(writes.map(jsonRow))]),
  )
  return new Set(result.rows.map((r) => r.i))
}
