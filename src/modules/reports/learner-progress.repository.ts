import { type SqlBool, sql } from 'kysely'
import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { ALL_DISPATCHES } from './progress-rollup.ts'

/**
 * The learner-progress report's reads (learner-progress.report.ts puts them together). None of
 * them reads every session of the tenant:
 * - whole days come from the rollup `report_daily` (one row per package, dispatch and day, with
 *   its counts, time histogram and distinct learners);
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
 * Rollup rows of the days in [fromDay, toDay) (`YYYY-MM-DD`; either may be open): the
 * per-dispatch rows when `byDispatchRows` (a dispatch is named or lines are per dispatch), else
 * the packages' all-dispatch rows.
 */
export function rollupRows(
  db: Executor,
  scope: TenantScope,
  selection: ProgressSelection,
  days: { fromDay?: string; toDay?: string },
  byDispatchRows: boolean,
) {
  return db
    .selectFrom('report_daily')
    .select([
      'package_id',
      'dispatch_key',
      'attempts',
      'completed',
      'passed',
      'failed',
      'scored',
      'score_sum',
      'time_sum',
      'time_histogram',
      'learners',
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
    .execute()
}

/** The report's columns of the sessions started in [from, to) (a partial day: a few hours). */
export function sessionResults(
  db: Executor,
  scope: TenantScope,
  selection: ProgressSelection,
  range: Range,
) {
  return sessionsIn(db, scope, selection, range).select(RESULT_COLUMNS).execute()
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
