import type { Mode } from '../schema.ts'

/**
 * The learner-progress report's rollup (migration 0023, modules/reports): one row per package,
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
  /** JSON TimeHistogram (modules/reports/time-histogram.ts) of time_spent_seconds. */
  time_histogram: string
  /**
   * JSON array of the distinct learner ids with a session in the row: a date range's active
   * learners are the union of its rows' lists, exact without reading the sessions.
   */
  learners: string
}

export interface ReportTables {
  report_daily: ReportDailyTable
}
