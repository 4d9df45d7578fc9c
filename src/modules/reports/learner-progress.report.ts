import type { Executor } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import * as repo from './learner-progress.repository.ts'
import { LearnerBits } from './learner-set.ts'
import { accumulate, addCounts, type Counts, countsOf, ZERO_COUNTS } from './progress-rollup.ts'
import {
  addTime,
  type DenseHistogram,
  exactMedian,
  histogramMedian,
  mergeEncoded,
  mergeHistogram,
  sparseOf,
  type TimeHistogram,
} from './time-histogram.ts'

/** One line per package (`package`), per package and dispatch, or per package and learner. */
export type ReportGroup = 'package' | 'dispatch' | 'learner'

/** Which sessions the report counts: started in [from, to), optionally narrowed. */
export interface LearnerProgressFilter {
  package_id?: string
  dispatch_id?: string
  learner_id?: string
  /** Sessions started at or after this instant (ISO 8601). */
  from?: string
  /** Sessions started before this instant (ISO 8601). */
  to?: string
  /** Default `package`. */
  group?: ReportGroup
  /** Lines per page of `group=learner`; default 100, at most 1 000. */
  limit?: number
  /** `next_cursor` of the previous page (`group=learner`). */
  cursor?: string
}

/** One line. Rates are 0–1; null when nothing was there to count. */
export interface LearnerProgressRow {
  package_id: string
  package_title: string | null
  /** `group=dispatch`: the dispatch, null for sessions launched without one. */
  dispatch_id?: string | null
  /** `group=learner`. */
  learner_id?: string
  learner_name?: string
  /** Active learners: distinct learners with a session started in the range. */
  learners: number
  /** Sessions (attempts) started in the range. */
  attempts: number
  /** Attempts completed ÷ attempts. */
  completion_rate: number
  /** Attempts passed ÷ attempts with a pass/fail verdict; null when none has one. */
  pass_rate: number | null
  /** Mean scaled score (−1…1) of the attempts that have one. */
  average_score: number | null
  average_time_seconds: number
  /** Per learner: exact. Per package or dispatch: from the histogram (time-histogram.ts). */
  median_time_seconds: number
}

export interface LearnerProgressReport {
  group: ReportGroup
  rows: LearnerProgressRow[]
  /** `group=learner` only: the next page's cursor, null on the last page. */
  next_cursor: string | null
}

export const DEFAULT_LEARNER_LIMIT = 100
export const MAX_LEARNER_LIMIT = 1000

interface Cell {
  package_id: string
  dispatch_id: string | null
  counts: Counts
  /** The rollup rows' histograms, added up. */
  dense: DenseHistogram
  /** The partial days' sessions' times. */
  histogram: TimeHistogram
  /** Learner numbers (report_learner_ids) of the rows and the partial days. */
  learners: LearnerBits
  /** Partial-day learners without a number: none unless a session bypassed the rollup hook. */
  unnumbered: Set<string>
}

/** The learner-progress report for `scope` (see learner-progress.repository.ts for its reads). */
export async function learnerProgress(
  db: Executor,
  scope: TenantScope,
  filter: LearnerProgressFilter,
): Promise<LearnerProgressReport> {
  const range = normalisedRange(filter)
  const group = filter.group ?? 'package'
  const selection = {
    ...(filter.package_id !== undefined && { package_id: filter.package_id }),
    ...(filter.dispatch_id !== undefined && { dispatch_id: filter.dispatch_id }),
    ...(filter.learner_id !== undefined && { learner_id: filter.learner_id }),
  }
  if (group === 'learner') return learnerLines(db, scope, selection, range, filter)
  if (selection.learner_id !== undefined)
    throw new AppError('validation_failed', 'learner_id narrows group=learner only')
  const byDispatch = group === 'dispatch'
  const cells = new Map<string, Cell>()
  const cellOf = (packageId: string, dispatchId: string | null) => {
    const key = byDispatch ? `${packageId}\u0000${dispatchId ?? ''}` : packageId
    let cell = cells.get(key)
    if (!cell) {
      cell = {
        package_id: packageId,
        dispatch_id: byDispatch ? dispatchId : null,
        counts: { ...ZERO_COUNTS },
        dense: { counts: [], sums: [] },
        histogram: {},
        learners: new LearnerBits(),
        unnumbered: new Set<string>(),
      }
      cells.set(key, cell)
    }
    return cell
  }
  const split = splitRange(range)
  const [days, edges] = await Promise.all([
    split.days
      ? repo.rollupTotals(
          db,
          scope,
          selection,
          split.days,
          byDispatch || selection.dispatch_id !== undefined,
        )
      : [],
    Promise.all(split.edges.map((edge) => repo.sessionResults(db, scope, selection, edge))),
  ])
  for (const row of days) {
    const cell = cellOf(row.package_id, row.dispatch_key === '' ? null : row.dispatch_key)
    cell.counts = addCounts(cell.counts, row.counts)
    mergeEncoded(cell.dense, row.time_buckets)
    cell.learners.addEncoded(row.learner_sets)
  }
  for (const s of edges.flat()) {
    const cell = cellOf(s.package_id, s.dispatch_id)
    cell.counts = addCounts(cell.counts, countsOf(s))
    addTime(cell.histogram, Number(s.time_spent_seconds), 1)
    if (s.learner_n === null) cell.unnumbered.add(s.learner_id)
    else cell.learners.add(Number(s.learner_n))
  }
  const live = [...cells].filter(([, c]) => c.counts.attempts > 0)
  const titles = await titlesOf(
    db,
    scope,
    live.map(([, c]) => c.package_id),
  )
  const rows = live
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, c]) => ({
      package_id: c.package_id,
      package_title: titles.get(c.package_id) ?? null,
      ...(byDispatch && { dispatch_id: c.dispatch_id }),
      learners: c.learners.size + c.unnumbered.size,
      ...rates(c.counts, medianOf(c)),
    }))
  return { group, rows, next_cursor: null }
}

/** Every line of the report, all pages of `group=learner` included (the CSV export). */
export async function learnerProgressAll(
  db: Executor,
  scope: TenantScope,
  filter: LearnerProgressFilter,
): Promise<LearnerProgressReport> {
  const first = await learnerProgress(db, scope, { ...filter, limit: MAX_LEARNER_LIMIT })
  let cursor = first.next_cursor
  while (cursor) {
    const page = await learnerProgress(db, scope, { ...filter, limit: MAX_LEARNER_LIMIT, cursor })
    first.rows.push(...page.rows)
    cursor = page.next_cursor
  }
  return { ...first, next_cursor: null }
}

function medianOf(cell: Cell): number | null {
  const histogram = sparseOf(cell.dense)
  mergeHistogram(histogram, cell.histogram)
  return histogramMedian(histogram)
}

/**
 * Walk the learner index when at least a quarter of the package's (or tenant's) sessions are in
 * the range: reading an index entry in order costs a fraction of a seek plus a row read plus a
 * sort step per session, which is what the date-range index costs.
 */
function indexFor(inRange: number, total: number): repo.IndexChoice {
  return inRange * 4 >= total ? 'learner-index' : 'range'
}

function rates(c: Counts, median: number | null) {
  const judged = c.passed + c.failed
  return {
    attempts: c.attempts,
    completion_rate: c.attempts ? c.completed / c.attempts : 0,
    pass_rate: judged ? c.passed / judged : null,
    average_score: c.scored ? c.score_sum / c.scored : null,
    average_time_seconds: c.attempts ? c.time_sum / c.attempts : 0,
    median_time_seconds: Math.round((median ?? 0) * 1000) / 1000,
  }
}

async function titlesOf(db: Executor, scope: TenantScope, ids: string[]) {
  const rows = await repo.packageTitles(db, scope, [...new Set(ids)])
  return new Map(rows.map((r) => [r.id, r.title]))
}

/** Per learner: exact, from the page's sessions (the index gives the page's learners). */
async function learnerLines(
  db: Executor,
  scope: TenantScope,
  selection: repo.ProgressSelection,
  range: repo.Range,
  filter: LearnerProgressFilter,
): Promise<LearnerProgressReport> {
  const limit = Math.min(filter.limit ?? DEFAULT_LEARNER_LIMIT, MAX_LEARNER_LIMIT)
  const after = filter.cursor ? decodeCursor(filter.cursor) : undefined
  const packageOnly = selection.package_id !== undefined ? { package_id: selection.package_id } : {}
  const { days } = splitRange(range)
  const [total, inDays] = await Promise.all([
    repo.attemptTotal(db, scope, packageOnly),
    days ? repo.attemptTotal(db, scope, packageOnly, days) : 0,
  ])
  const page = await repo.learnerPage(db, scope, selection, range, {
    limit,
    via: indexFor(inDays, total),
    ...(after && { after }),
  })
  const keys = page.slice(0, limit).map((p) => [p.package_id, p.learner_id] as const)
  const first = keys[0]
  const last = keys.at(-1)
  if (!first || !last) return { group: 'learner', rows: [], next_cursor: null }
  const sessions = await repo.learnerSessions(db, scope, selection, { ...range, first, last })
  const titles = await titlesOf(
    db,
    scope,
    keys.map(([p]) => p),
  )
  const byLearner = new Map<string, typeof sessions>()
  for (const s of sessions) {
    const key = `${s.package_id}\u0000${s.learner_id}`
    const list = byLearner.get(key)
    if (list) list.push(s)
    else byLearner.set(key, [s])
  }
  const rows = keys.map(([packageId, learnerId]) => {
    const own = byLearner.get(`${packageId}\u0000${learnerId}`) ?? []
    const acc = { counts: { ...ZERO_COUNTS }, histogram: {}, learners: new Set<string>() }
    for (const s of own) accumulate(acc, s)
    const median = exactMedian(own.map((s) => Number(s.time_spent_seconds)))
    return {
      package_id: packageId,
      package_title: titles.get(packageId) ?? null,
      learner_id: learnerId,
      learner_name: own.at(-1)?.learner_name ?? learnerId,
      learners: 1,
      ...rates(acc.counts, median),
    }
  })
  const next_cursor = page.length > limit ? encodeCursor(last) : null
  return { group: 'learner', rows, next_cursor }
}

function encodeCursor(key: readonly [string, string]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url')
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (Array.isArray(key) && key.length === 2 && key.every((k) => typeof k === 'string'))
      return key as [string, string]
  } catch {}
  throw new AppError('validation_failed', 'cursor is not a cursor this report gave')
}

/** from/to as canonical ISO instants (the form `created_at` is stored in). */
function normalisedRange(filter: LearnerProgressFilter): repo.Range {
  const iso = (name: string, value: string) => {
    const time = new Date(value).getTime()
    if (Number.isNaN(time)) throw new AppError('validation_failed', `${name} is not a date-time`)
    return new Date(time).toISOString()
  }
  return {
    ...(filter.from !== undefined && { from: iso('from', filter.from) }),
    ...(filter.to !== undefined && { to: iso('to', filter.to) }),
  }
}

const MIDNIGHT = 'T00:00:00.000Z'
const nextDay = (day: string) =>
  new Date(new Date(`${day}${MIDNIGHT}`).getTime() + 86_400_000).toISOString().slice(0, 10)

/**
 * Splits [from, to) into whole UTC days (read from the rollup) and at most two partial days at
 * its ends (read from the sessions of those hours).
 */
export function splitRange(range: repo.Range): {
  days: { fromDay?: string; toDay?: string } | null
  edges: Array<{ from: string; to: string }>
} {
  const { from, to } = range
  const edges: Array<{ from: string; to: string }> = []
  let fromDay: string | undefined
  if (from !== undefined)
    fromDay = from.endsWith(MIDNIGHT) ? from.slice(0, 10) : nextDay(from.slice(0, 10))
  const toDay = to?.slice(0, 10)
  if (from !== undefined && to !== undefined && (fromDay as string) >= (toDay as string)) {
    return { days: null, edges: from < to ? [{ from, to }] : [] }
  }
  if (from !== undefined && !from.endsWith(MIDNIGHT))
    edges.push({ from, to: `${fromDay}${MIDNIGHT}` })
  if (to !== undefined && !to.endsWith(MIDNIGHT)) edges.push({ from: `${toDay}${MIDNIGHT}`, to })
  return {
    days: { ...(fromDay !== undefined && { fromDay }), ...(toDay !== undefined && { toDay }) },
    edges,
  }
}
