import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { learnerNumber } from './learner-numbers.repository.ts'
import { withLearner } from './learner-set.ts'
import {
  ALL_DISPATCHES,
  addCounts,
  type Counts,
  countsOf,
  rollupKey,
  type SessionResult,
  ZERO_COUNTS,
} from './progress-rollup.ts'
import { addTime, decodeHistogram, encodeHistogram } from './time-histogram.ts'

/**
 * Keeps the learner-progress rollup (`report_daily`) equal to the sessions table: every write
 * that creates a session or changes its status, score or time calls this in the same
 * transaction, with the row as it was (`before`, null for a new session) and as written
 * (`after`). A write that changes none of those costs nothing here.
 *
 * The counters move by one upsert that adds the difference; that upsert also takes the row's lock
 * (PostgreSQL), so the time histogram it returns is current and its read-modify-write cannot lose
 * a concurrent change (SQLite runs one write transaction at a time anyway).
 */
export async function recordSessionResult(
  db: Executor,
  scope: TenantScope,
  before: SessionResult | null,
  after: SessionResult,
): Promise<void> {
  const delta = addCounts(countsOf(after), before ? countsOf(before) : ZERO_COUNTS, -1)
  const oldTime = before ? Number(before.time_spent_seconds) : null
  const newTime = Number(after.time_spent_seconds)
  const histogramChanges = oldTime !== newTime
  if (!histogramChanges && isZero(delta)) return
  // Numbered before this write locks a rollup row, so that a writer holding the learner counter
  // (PostgreSQL: until commit) never waits on it while holding a row another writer needs.
  const newLearner = before === null ? await learnerNumber(db, scope, after.learner_id) : null
  const change = { delta, oldTime, newTime, newLearner }
  const key = rollupKey(after)
  // The dispatch's row, then the package's all-dispatch row: always in this order (locks).
  await applyToRow(db, scope, key, change)
  await applyToRow(db, scope, { ...key, dispatch_key: ALL_DISPATCHES }, change)
}

/** One row's share of `recordSessionResult`: the counter upsert, then the histogram and set. */
async function applyToRow(
  db: Executor,
  scope: TenantScope,
  cell: ReturnType<typeof rollupKey>,
  change: { delta: Counts; oldTime: number | null; newTime: number; newLearner: number | null },
): Promise<void> {
  const { delta, oldTime, newTime } = change
  const key = { tenant_id: scope.tenantId, mode: scope.mode, ...cell }
  const row = await db
    .insertInto('report_daily')
    .values({ ...key, ...delta, time_buckets: EMPTY, learner_set: EMPTY })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'mode', 'package_id', 'dispatch_key', 'day']).doUpdateSet((eb) => ({
        attempts: eb('report_daily.attempts', '+', eb.ref('excluded.attempts')),
        completed: eb('report_daily.completed', '+', eb.ref('excluded.completed')),
        passed: eb('report_daily.passed', '+', eb.ref('excluded.passed')),
        failed: eb('report_daily.failed', '+', eb.ref('excluded.failed')),
        scored: eb('report_daily.scored', '+', eb.ref('excluded.scored')),
        score_sum: eb('report_daily.score_sum', '+', eb.ref('excluded.score_sum')),
        time_sum: eb('report_daily.time_sum', '+', eb.ref('excluded.time_sum')),
      })),
    )
    .returning(['time_buckets', 'learner_set'])
    .executeTakeFirstOrThrow()
  if (oldTime === newTime) return
  const histogram = decodeHistogram(row.time_buckets)
  if (oldTime !== null) addTime(histogram, oldTime, -1)
  addTime(histogram, newTime, 1)
  // A new session (the only kind without `before`) may bring a learner new to the row.
  const learners =
    change.newLearner === null ? null : withLearner(row.learner_set, change.newLearner)
  await db
    .updateTable('report_daily')
    .set({ time_buckets: encodeHistogram(histogram), ...(learners && { learner_set: learners }) })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('package_id', '=', key.package_id)
    .where('dispatch_key', '=', key.dispatch_key)
    .where('day', '=', key.day)
    .execute()
}

const EMPTY = Buffer.alloc(0)

function isZero(c: Counts): boolean {
  return Object.values(c).every((v) => v === 0)
}
