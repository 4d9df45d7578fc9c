import type { Kysely } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { type LearnerProgressFilter, learnerProgressQuery } from './learner-progress.repository.ts'

export { type LearnerProgressFilter, learnerProgressQuery } from './learner-progress.repository.ts'

/** One package's line. Rates are 0–1; null when nothing was there to count. */
export interface LearnerProgressRow {
  package_id: string
  package_title: string | null
  /** Distinct learners with a session in the range. */
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
  median_time_seconds: number
}

interface RawRow {
  package_id: string
  package_title: string | null
  learners: number | string
  attempts: number | string
  completed: number | string
  passed: number | string
  judged: number | string
  average_score: number | string | null
  average_time: number | string | null
  median_time: number | string | null
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v))

/** The report's rows for `scope` (see `learnerProgressQuery`). */
export async function learnerProgress(
  db: Kysely<Database>,
  scope: TenantScope,
  filter: LearnerProgressFilter,
): Promise<LearnerProgressRow[]> {
  const rows = await learnerProgressQuery(db, scope, filter).execute()

  return (rows as RawRow[]).map((r) => {
    const attempts = Number(r.attempts)
    const judged = Number(r.judged)
    return {
      package_id: r.package_id,
      package_title: r.package_title,
      learners: Number(r.learners),
      attempts,
      completion_rate: attempts ? Number(r.completed) / attempts : 0,
      pass_rate: judged ? Number(r.passed) / judged : null,
      average_score: num(r.average_score),
      average_time_seconds: num(r.average_time) ?? 0,
      median_time_seconds: num(r.median_time) ?? 0,
    }
  })
}

/** Columns of the report's CSV, in order. */
export const LEARNER_PROGRESS_COLUMNS = [
  'package_id',
  'package_title',
  'learners',
  'attempts',
  'completion_rate',
  'pass_rate',
  'average_score',
  'average_time_seconds',
  'median_time_seconds',
] as const satisfies readonly (keyof LearnerProgressRow)[]

function csvCell(value: string | number | null): string {
  if (value === null) return ''
  const text = String(value)
  // A leading = + - @ would be a formula in a spreadsheet: quote it with a leading apostrophe.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value === 'string' ? `'${text}` : text
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

export function learnerProgressCsv(rows: readonly LearnerProgressRow[]): string {
  const lines = [LEARNER_PROGRESS_COLUMNS.join(',')]
  for (const row of rows) lines.push(LEARNER_PROGRESS_COLUMNS.map((c) => csvCell(row[c])).join(','))
  return `${lines.join('\r\n')}\r\n`
}
