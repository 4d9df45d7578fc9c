import type { Mode } from '../schema.ts'

/**
 * The learner-progress report's rollup (migrations 0023 and 0024, modules/reports): one row per package,
 * dispatch and UTC day of the attempts that started that day, kept current in the transaction
 * that changes a session's status, score or time (`recordSessionResult`).
 */
export interface ReportDailyTable {
  tenant_id: string
  mode: Mode
  package_id: string
  /** The sessions' dispatch id; '' for sessions launched without a dispatch. */
  dispatch_key: string
  /** `YYYY-MM-DD` (UTC) of the sessions' `created_at`. */
  day: string
  attempts: number
  /** Attempts with completion_status = completed. */
  completed: number
  passed: number
  failed: number
  /** Attempts with a scaled score. */
  scored: number
  score_sum: number
  time_sum: number
  /**
   * TimeHistogram of time_spent_seconds in binary (modules/reports/time-histogram.ts,
   * `encodeHistogram`; migration 0024).
   */
  time_buckets: Uint8Array
  /**
   * The distinct learners with a session in the row, as their `report_learner_ids.n` in binary
   * (modules/reports/learner-set.ts; migration 0024): a date range's active learners are the
   * union of its rows' sets, exact without reading the sessions.
   */
  learner_set: Uint8Array
}

/**
 * Dense numbers for the learner ids of a tenant and mode (migration 0024), from 0 up: given to
 * each learner with their first session (the back-fill numbered the older ones in session id
 * order). What the rollup's learner sets hold; only the counts depend on them, not the order.
 */
export interface ReportLearnerIdsTable {
  tenant_id: string
  mode: Mode
  learner_id: string
  n: number
}

/** The next `report_learner_ids.n` of a tenant and mode; its row lock orders the assignments. */
export interface ReportLearnerCountersTable {
  tenant_id: string
  mode: Mode
  next_n: number
}

export interface ReportTables {
  report_daily: ReportDailyTable
  report_learner_ids: ReportLearnerIdsTable
  report_learner_counters: ReportLearnerCountersTable
}
