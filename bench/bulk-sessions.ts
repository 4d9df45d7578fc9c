/**
 * Sessions written straight into a bench server's database by SQL, so that a bench measures at
 * realistic data sizes in seconds (`INSERT … SELECT` over a recursive CTE on SQLite,
 * `generate_series` on PostgreSQL): bench/scale.bench.ts builds a million, bench/runtime.bench.ts
 * the tenant its learners commit in (with each attempt's SCO row and record, `insertScoRecords`),
 * bench/report.bench.ts (through `insertSeries`) a tenant of varied attempts for its report.
 */
import { sql } from 'kysely'
import type { Db } from '../src/infra/db/database.ts'

export interface Target {
  tenantId: string
  packageId: string
  versionId: string
}

export async function target(db: Db, packageId: string): Promise<Target> {
  const row = await db.kysely
    .selectFrom('packages')
    .select(['tenant_id', 'active_version_id'])
    .where('id', '=', packageId)
    .executeTakeFirstOrThrow()
  return { tenantId: row.tenant_id, packageId, versionId: row.active_version_id ?? '' }
}

/** The columns every bulk-built session row fills, in the order of `insertSeries`' select. */
const SESSION_COLUMNS = `(id, tenant_id, mode, package_id, version_id, learner_id,
  learner_name, dispatch_id, attempt_number, open, scorm_version, completion_status,
  success_status, score_scaled, score_raw, score_min, score_max, progress_percent, session_time,
  time_spent_seconds, suspended, current_item_id, launch_count, created_at, updated_at,
  last_launched_at, completed_at, completed_event_at)`

/**
 * One session row for each `i` of `from … to` (inclusive), `select` giving its values in the
 * order of `SESSION_COLUMNS` as SQL over `i`: `generate_series` on PostgreSQL, a recursive CTE
 * on SQLite.
 */
export async function insertSeries(db: Db, select: string, from: number, to: number) {
  if (to < from) return
  const text =
    db.dialect === 'postgres'
      ? `insert into sessions ${SESSION_COLUMNS} ${select} from generate_series(${from}, ${to}) as n(i)`
      : `with recursive n(i) as (select ${from} union all select i + 1 from n where i < ${to})
         insert into sessions ${SESSION_COLUMNS} ${select} from n`
  await sql.raw(text).execute(db.kysely)
}

/** Sessions `from+1 … to` as finished attempts, by one INSERT … SELECT per call. */
export async function insertSessions(
  db: Db,
  t: Target,
  prefix: string,
  tenantSql: string,
  from: number,
  to: number,
) {
  const pg_ = db.dialect === 'postgres'
  const at = pg_
    ? `to_char(timestamp '2024-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', 1704067200 + i, 'unixepoch')`
  const id = pg_ ? `'${prefix}' || lpad(i::text, 9, '0')` : `'${prefix}' || printf('%09d', i)`
  const half = pg_ ? '(i / 2)::text' : '(i / 2)'
  const select = `select ${id}, ${tenantSql}, 'test', '${t.packageId}', '${t.versionId}',
      'learner-' || ${half}, 'Learner ' || ${half}, null, 1 + (i % 2), 0, '1.2', 'completed',
      'passed', 0.8, 80, 0, 100, 100, 'PT10M', 600, 0, null, 1, ${at}, ${at}, ${at}, ${at}, ${at}`
  await insertSeries(db, select, from + 1, to)
}

/** A finished SCORM 1.2 attempt's record, as a launch and its commits leave it (9 elements). */
const RECORD = [
  ['cmi.core.credit', 'credit'],
  ['cmi.core.entry', 'ab-initio'],
  ['cmi.core.lesson_location', 'page-12'],
  ['cmi.core.lesson_mode', 'normal'],
  ['cmi.core.lesson_status', 'passed'],
  ['cmi.core.score.raw', '80'],
  ['cmi.core.total_time', '0000:10:00.00'],
  ['cmi.student_data.time_limit_action', 'continue,no message'],
  ['cmi.suspend_data', 'p12'.repeat(40)],
] as const

/**
 * For every session whose id starts with `prefix` (as `insertSessions` named them): its SCO's row
 * (`sco_states`, item `itemId`) and record (`sco_values`), so that a commit's statements run
 * against tables of the tenant's size, not only the learners' own rows.
 */
export async function insertScoRecords(db: Db, prefix: string, itemId: string) {
  const built = `s.id > '${prefix}' and s.id < '${prefix}~'`
  await sql
    .raw(`insert into sco_states (session_id, item_id, tenant_id, mode, carry, completion_status,
        success_status, score_scaled, score_raw, score_min, score_max, progress_measure,
        total_time, suspended, launched, updated_at, delivery_id, delivery_seq, data_chars)
      select s.id, '${itemId}', s.tenant_id, s.mode, '{}', 'completed', 'passed', 0.8, 80, 0,
        100, null, '0000:10:00.00', 0, 1, s.updated_at, null, 0, 400
      from sessions s where ${built}`)
    .execute(db.kysely)
  const elements = RECORD.map(([e, v]) => `select '${e}' as element, '${v}' as value`)
  await sql
    .raw(`insert into sco_values (session_id, item_id, element, value, delivery_id)
      select s.id, '${itemId}', e.element, e.value, null
      from sessions s cross join (${elements.join(' union all ')}) e where ${built}`)
    .execute(db.kysely)
}
