import type { StatementSummary } from '../cmi5/statement-summary.ts'

/** The sessions CSV's statement-summary columns (empty for SCORM sessions), in order. */
export const XAPI_SUMMARY_CSV_COLUMNS = [
  'xapi_registration',
  'xapi_statement_count',
  'xapi_first_statement_at',
  'xapi_last_statement_at',
  'xapi_last_verb',
] as const

/** A session's values for {@link XAPI_SUMMARY_CSV_COLUMNS}. */
export function xapiSummaryCsvValues(
  summary: StatementSummary | undefined,
): Record<(typeof XAPI_SUMMARY_CSV_COLUMNS)[number], unknown> {
  return {
    xapi_registration: summary?.registration,
    xapi_statement_count: summary?.statement_count,
    xapi_first_statement_at: summary?.first_statement_at,
    xapi_last_statement_at: summary?.last_statement_at,
    xapi_last_verb: summary?.last_verb,
  }
}
