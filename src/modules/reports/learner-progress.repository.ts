import { PostgresAdapter, type SqlBool, sql } from 'kysely'
import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { ALL_DISPATCHES } from './progress-rollup.ts'

/**
 * The learner-progress report's reads (learner-progress.report.ts puts them together). None of
 * them reads every session of the tenant:
 * - whole days come from the rollup `report_daily` (one row per package, dispatch and day, with
 *   its counts, and its time histogram and distinct learners' numbers in binary);
 * - the partial first and last day of a range that does not start or end at midnight UTC come
 *   from the sessions of those hours (`sessions_scope_created`);
 * - the per-learner lines' page of learners comes from the index `sessions_report_learners`
 *   (tenant_id, mode, package_id, learner_id, created_at, dispatch_id) alone, in its order.
 */

/** Which sessions a read counts. */
export interface ProgressSelection {
  package_id?: string
  dispatch_id?: string
  learner_id?: string
}

/**
 * The rollup rows of the days in [fromDay, toDay) (`YYYY-MM-DD`; either may be open), added up
 * per package and dispatch key: the per-dispatch rows when `byDispatchRows` (a dispatch is named
 * or lines are per dispatch), else the packages' all-dispatch rows. The database sums the counts
 * and concatenates the rows' binary histograms (a concatenation is a histogram with repeated
 * buckets, time-histogram.ts) and learner sets (0-separated, learner-set.ts): returning tens of
 * thousands of rows to JavaScript cost more than everything else in the widest reports.
 */
export async function rollupTotals(
  db: Executor,
  scope: TenantScope,
  selection: ProgressSelection,
  days: { fromDay?: string; toDay?: string },
  byDispatchRows: boolean,
) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  // SQLite has no blob aggregate: its group_concat is text, so the blobs travel as hex.
  const learnerSets = postgres
    ? sql<Uint8Array | string>`string_agg(learner_set, decode('00', 'hex'))`
    : sql<Uint8Array | string>`group_concat(hex(learner_set), '00')`
  const timeBuckets = postgres
    ? sql<Uint8Array | string>`string_agg(time_buckets, ''::bytea)`
    : sql<Uint8Array | string>`group_concat(hex(time_buckets), '')`
  const rows = await db
    .selectFrom('report_daily')
    .select((eb) => [
      'package_id',
      'dispatch_key',
      eb.fn.sum<number | string>('attempts').as('attempts'),
      eb.fn.sum<number | string>('completed').as('completed'),
      eb.fn.sum<number | string>('passed').as('passed'),
      eb.fn.sum<number | string>('failed').as('failed'),
      eb.fn.sum<number | string>('scored').as('scored'),
      eb.fn.sum<number | string>('score_sum').as('score_sum'),
      eb.fn.sum<number | string>('time_sum').as('time_sum'),
      learnerSets.as('learner_sets'),
      timeBuckets.as('time_buckets'),
    ])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .$if(selection.package_id !== undefined, (q) =>
      q.where('package_id', '=', selection.package_id ?? ''),
    )
    .where('dispatch_key', byDispatchRows ? '!=' : '=', ALL_DISPATCHES)
    .$if(selection.dispatch_id !== undefined, (q) =>
      q.where('dispatch_key', '=', selection.dispatch_id ?? ''),
    )
    .$if(days.fromDay !== undefined, (q) => q.where('day', '>=', days.fromDay ?? ''))
    .$if(days.toDay !== undefined, (q) => q.where('day', '<', days.toDay ?? ''))
    .groupBy(['package_id', 'dispatch_key'])
    .execute()
  const bytes = (v: Uint8Array | string) => (typeof v === 'string' ? Buffer.from(v, 'hex') : v)
  return rows.map((r) => ({
    package_id: r.package_id,
    dispatch_key: r.dispatch_key,
    counts: {
      attempts: Number(r.attempts),
      completed: Number(r.completed),
      passed: Number(r.passed),
      failed: Number(r.failed),
      scored: Number(r.scored),
      score_sum: Number(r.score_sum),
      time_sum: Number(r.time_sum),
    },
    learner_sets: bytes(r.learner_sets),
    time_buckets: bytes(r.time_buckets),
  }))
}

/**
 * The report's columns of the sessions started in [from, to) (a partial day: a few hours), with
 * each learner's number (`learner_n`, report_learner_ids' primary key) so that they join the
 * rollup rows' learner sets in one union.
 */
export function sessionResults(
  db: Executor,
  scope: TenantScope,
  selection: ProgressSelection,
  range: Range,
) {
  return sessionsIn(db, scope, selection, range)
    .select(RESULT_COLUMNS)
    .select((eb) =>
      eb
        .selectFrom('report_learner_ids as l')
        .select('l.n')
        .whereRef('l.tenant_id', '=', 'sessions.tenant_id')
        .whereRef('l.mode', '=', 'sessions.mode')
        .whereRef('l.learner_id', '=', 'sessions.learner_id')
        .as('learner_n'),
    )
    .execute()
}

/**
 * One page of (package, learner) pairs with a session in [from, to), after `after`, in
 * (package_id, learner_id) order: `limit + 1` of them, so the caller knows whether more follow.
 */
export function learnerPage(
  db: Executor,
  scope: TenantScope,
  selection: ProgressSelection,
  range: Range,
  page: { after?: readonly [string, string]; limit: number; via: IndexChoice },
) {
  const { after } = page
  return sessionsIn(db, scope, selection, range, page.via)
    .select(['package_id', 'learner_id'])
    .distinct()
    .$if(after !== undefined, (q) =>
      q.where(sql<SqlBool>`(package_id, learner_id) > (${after?.[0]}, ${after?.[1]})`),
    )
    .orderBy('package_id')
    .orderBy('learner_id')
    .limit(page.limit + 1)
    .execute()
}

/** The sessions in [from, to) of the (package, learner) pairs from `first` to `last`. */
export function learnerSessions(
  db: Executor,
  scope: TenantScope,
  selection: ProgressSelection,
  range: Range & { first: readonly [string, string]; last: readonly [string, string] },
) {
  const { first, last } = range
  // The (package, learner) bounds seek an index that leads with them, not the date range.
  return sessionsIn(db, scope, selection, range, 'learner-index')
    .select(RESULT_COLUMNS)
    .where(sql<SqlBool>`(package_id, learner_id) >= (${first[0]}, ${first[1]})`)
    .where(sql<SqlBool>`(package_id, learner_id) <= (${last[0]}, ${last[1]})`)
    .orderBy('package_id')
    .orderBy('learner_id')
    .orderBy('created_at')
    .execute()
}

/** The titles of the scope's packages `ids`. */
export function packageTitles(db: Executor, scope: TenantScope, ids: readonly string[]) {
  if (ids.length === 0) return Promise.resolve([])
  return db
    .selectFrom('packages')
    .select(['id', 'title'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', 'in', ids)
    .execute()
}

/** Sessions started in [from, to). */
export interface Range {
  from?: string
  to?: string
}

const RESULT_COLUMNS = [
  'package_id',
  'dispatch_id',
  'learner_id',
  'learner_name',
  'created_at',
  'completion_status',
  'success_status',
  'score_scaled',
  'time_spent_seconds',
] as const

/**
 * How a read finds its sessions: `range` seeks `sessions_scope_created` on the date range (few
 * sessions in the range); `learner-index` walks `sessions_report_learners` for the tenant (or
 * package) in (package, learner) order, with no sort and no table access, testing the start time
 * in the index (most of the sessions are in the range). SQLite has no statistics here to choose
 * well, so the caller chooses from the rollup's counts (`attemptTotal`): the date conditions are
 * written as `created_at || ''` for `learner-index`, which no index can seek.
 */
export type IndexChoice = 'range' | 'learner-index'

/** Sessions of the package (or all) started in whole days [fromDay, toDay), from the rollup. */
export async function attemptTotal(
  db: Executor,
  scope: TenantScope,
  selection: { package_id?: string },
  days: { fromDay?: string; toDay?: string } = {},
): Promise<number> {
  const row = await db
    .selectFrom('report_daily')
    .select((eb) => eb.fn.sum<number | string | null>('attempts').as('n'))
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .$if(selection.package_id !== undefined, (q) =>
      q.where('package_id', '=', selection.package_id ?? ''),
    )
    .where('dispatch_key', '=', ALL_DISPATCHES)
    .$if(days.fromDay !== undefined, (q) => q.where('day', '>=', days.fromDay ?? ''))
    .$if(days.toDay !== undefined, (q) => q.where('day', '<', days.toDay ?? ''))
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

// The scope's sessions the selection and range name, before the caller's columns.
function sessionsIn(
  db: Executor,
  scope: TenantScope,
  selection: ProgressSelection,
  range: Range,
  via: IndexChoice = 'range',
) {
  let q = db
    .selectFrom('sessions')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
  if (selection.package_id !== undefined) q = q.where('package_id', '=', selection.package_id)
  if (selection.dispatch_id !== undefined) q = q.where('dispatch_id', '=', selection.dispatch_id)
  if (selection.learner_id !== undefined) q = q.where('learner_id', '=', selection.learner_id)
  const start = via === 'range' ? sql.ref('created_at') : sql<string>`created_at || ''`
  if (range.from !== undefined) q = q.where(start, '>=', range.from)
  if (range.to !== undefined) q = q.where(start, '<', range.to)
  return q
}
