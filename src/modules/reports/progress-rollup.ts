import { addTime, type TimeHistogram } from './time-histogram.ts'

/**
 * What one session adds to its learner-progress rollup row (table `report_daily`): pure, so the
 * migrations that back-fill the rollup (0023, rebuilt by 0024) and the hook that keeps it current
 * (`recordSessionResult`) count a session the same way.
 */

/** The session columns the report reads. */
export interface SessionResult {
  package_id: string
  dispatch_id: string | null
  /** ISO 8601 UTC; its date is the rollup row's day. */
  created_at: string
  learner_id: string
  completion_status: string
  success_status: string
  score_scaled: number | null
  time_spent_seconds: number
}

export interface Counts {
  attempts: number
  completed: number
  passed: number
  failed: number
  scored: number
  score_sum: number
  time_sum: number
}

export const ZERO_COUNTS: Readonly<Counts> = Object.freeze({
  attempts: 0,
  completed: 0,
  passed: 0,
  failed: 0,
  scored: 0,
  score_sum: 0,
  time_sum: 0,
})

/**
 * The `dispatch_key` of a package's all-dispatch rows: every session counts once in its
 * dispatch's row ('' for none) and once in this one, which the per-package report reads alone
 * (a dozen times fewer rows than summing the dispatches' rows).
 */
export const ALL_DISPATCHES = '*'

/** The rollup row's key: its day is the UTC date the session started. */
export function rollupKey(s: SessionResult) {
  return {
    package_id: s.package_id,
    dispatch_key: s.dispatch_id ?? '',
    day: new Date(s.created_at).toISOString().slice(0, 10),
  }
}

export function countsOf(s: SessionResult): Counts {
  const score = s.score_scaled === null ? null : Number(s.score_scaled)
  return {
    attempts: 1,
    completed: s.completion_status === 'completed' ? 1 : 0,
    passed: s.success_status === 'passed' ? 1 : 0,
    failed: s.success_status === 'failed' ? 1 : 0,
    scored: score === null ? 0 : 1,
    score_sum: score ?? 0,
    time_sum: Number(s.time_spent_seconds),
  }
}

/** `a + sign · b`, field by field. */
export function addCounts(a: Counts, b: Counts, sign: 1 | -1 = 1): Counts {
  return {
    attempts: a.attempts + sign * b.attempts,
    completed: a.completed + sign * b.completed,
    passed: a.passed + sign * b.passed,
    failed: a.failed + sign * b.failed,
    scored: a.scored + sign * b.scored,
    score_sum: a.score_sum + sign * b.score_sum,
    time_sum: a.time_sum + sign * b.time_sum,
  }
}

/** Adds one session into an accumulator (0023's back-fill, the per-learner lines). */
export function accumulate(
  into: { counts: Counts; histogram: TimeHistogram; learners: Set<string> },
  s: SessionResult,
) {
  into.counts = addCounts(into.counts, countsOf(s))
  addTime(into.histogram, Number(s.time_spent_seconds), 1)
  into.learners.add(s.learner_id)
}
