import type {
  LearnerProgressReport,
  LearnerProgressRow,
  ReportGroup,
} from './learner-progress.report.ts'

/** The learner-progress report as CSV (`format=csv`): one line per report line, every page. */

/** Columns of the report's CSV for `group`, in order. */
export function learnerProgressColumns(group: ReportGroup): Array<keyof LearnerProgressRow> {
  const extra: Array<keyof LearnerProgressRow> =
    group === 'dispatch'
      ? ['dispatch_id']
      : group === 'learner'
        ? ['learner_id', 'learner_name']
        : []
  return [
    'package_id',
    'package_title',
    ...extra,
    'learners',
    'attempts',
    'completion_rate',
    'pass_rate',
    'average_score',
    'average_time_seconds',
    'median_time_seconds',
  ]
}

function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return ''
  const text = String(value)
  // A leading = + - @ would be a formula in a spreadsheet: quote it with a leading apostrophe.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value === 'string' ? `'${text}` : text
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

export function learnerProgressCsv(report: LearnerProgressReport): string {
  const columns = learnerProgressColumns(report.group)
  const lines = [columns.join(',')]
  for (const row of report.rows) lines.push(columns.map((c) => csvCell(row[c])).join(','))
  return `${lines.join('\r\n')}\r\n`
}
