import type { Kysely } from 'kysely'
import { cursorPosition, decodeCursor, type KeysetPosition } from '../../infra/db/keyset.ts'
import type { Database } from '../../infra/db/schema.ts'
import type { ScoValuesTable, SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import { type StatementSummary, statementSummaries } from '../cmi5/statement-summary.ts'
import { XAPI_SUMMARY_CSV_COLUMNS, xapiSummaryCsvValues } from '../lrs/statement-summary.csv.ts'
import { findVersion } from '../packages/package.repository.ts'
import type { StoredManifest } from '../packages/package-ingest.ts'
import { findScoStates } from '../runtime/runtime.repository.ts'
import { findSessionValues } from '../runtime/sco-values.repository.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { courseItems, trackedItems } from './course-items.ts'
import { sequencingView } from './sequencing-view.ts'
import { cmiData, toSessionDetail, toSessionSummary } from './session.mapper.ts'
import * as repo from './session.repository.ts'
import { isoFromSeconds, sessionTimeIso } from './session-time.ts'

export type SessionFilter = repo.SessionListFilter

/**
 * The position a `cursor` names: keyset.ts's `[sortKey, id]`, or the `{ v, id }` object this list
 * issued before it used keyset.ts, still accepted so a client walking pages across an upgrade
 * does not fail. Undefined for the first page.
 * @throws AppError `validation_failed` when the text is neither.
 */
function sessionCursor(cursor: string | undefined): KeysetPosition | undefined {
  if (cursor === undefined) return undefined
  const position = decodeCursor(cursor) ?? decodeLegacyCursor(cursor)
  if (!position) throw new AppError('validation_failed', 'cursor is not one this API issued')
  return position
}

/** The `{ v, id }` cursor of the sessions list before keyset.ts; null when it is not one. */
function decodeLegacyCursor(cursor: string): KeysetPosition | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (typeof value === 'object' && value !== null && 'v' in value && 'id' in value) {
      if (typeof value.v === 'string' && typeof value.id === 'string') {
        return { key: value.v, id: value.id }
      }
    }
  } catch {}
  return null
}

/** Columns of the CSV export, in order. */
export const SESSION_CSV_COLUMNS = [
  'session_id',
  'package_id',
  'learner_id',
  'dispatch_id',
  'attempt',
  'completion_status',
  'success_status',
  'score_scaled',
  'score_raw',
  'score_min',
  'score_max',
  'progress_percent',
  'session_time',
  'total_time',
  'time_spent_seconds',
  'created_at',
  'updated_at',
  'completed_at',
  ...XAPI_SUMMARY_CSV_COLUMNS,
] as const

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = String(value)
  // Quote when needed; a leading = + - @ is prefixed so spreadsheets never run it as a formula.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

function csvRow(row: SessionsTable, xapi?: StatementSummary): string {
  const values: Record<(typeof SESSION_CSV_COLUMNS)[number], unknown> = {
    session_id: row.id,
    package_id: row.package_id,
    learner_id: row.learner_id,
    dispatch_id: row.dispatch_id,
    attempt: row.attempt_number,
    completion_status: row.completion_status,
    success_status: row.success_status,
    score_scaled: row.score_scaled,
    score_raw: row.score_raw,
    score_min: row.score_min,
    score_max: row.score_max,
    progress_percent: row.progress_percent,
    session_time: sessionTimeIso('2004', row.session_time),
    total_time: isoFromSeconds(Number(row.time_spent_seconds)),
    time_spent_seconds: Math.round(Number(row.time_spent_seconds)),
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
    ...xapiSummaryCsvValues(xapi),
  }
  return `${SESSION_CSV_COLUMNS.map((c) => csvCell(values[c])).join(',')}\r\n`
}

/** Reading sessions: one by id (live progress), lists with filters, CSV export. */
export class SessionService {
  readonly #db: Kysely<Database>
  constructor(db: Kysely<Database>) {
    this.#db = db
  }

  async get(scope: TenantScope, sessionId: string) {
    const row = await repo.findSession(this.#db, scope, sessionId)
    if (!row) throw new AppError('session_not_found', `No session ${sessionId}`)
    const scos = await findScoStates(this.#db, scope, row.id)
    const values = await findSessionValues(this.#db, scope, [row.id])
    const counts = await this.#trackedCounts(scope, [row])
    const detail = toSessionDetail(row, scos, values, counts.get(row.version_id) ?? 0)
    // SCORM 2004: the activity tree's status and the global objectives (issue 14.6).
    const sequencing = await sequencingView(this.#db, scope, row)
    if (sequencing) return { ...detail, sequencing }
    // cmi5 and Tin Can sessions: what their statements amount to (modules/cmi5).
    if (row.scorm_version !== null) return detail
    const xapi = (await statementSummaries(this.#db, scope, [row.id])).get(row.id)
    return xapi ? { ...detail, xapi } : detail
  }

  /** How many tracked items each package version has (decides the shape of `cmi_data`). */
  async #trackedCounts(
    scope: TenantScope,
    rows: readonly Pick<SessionsTable, 'package_id' | 'version_id'>[],
  ): Promise<Map<string, number>> {
    const versions = new Map(rows.map((r) => [r.version_id, r.package_id]))
    const counts = new Map<string, number>()
    for (const [versionId, packageId] of versions) {
      const version = await findVersion(this.#db, scope, packageId, versionId)
      if (!version) continue
      const manifest = JSON.parse(version.manifest) as StoredManifest
      counts.set(versionId, trackedItems(courseItems(manifest)).length)
    }
    return counts
  }

  /**
   * A page of sessions. With `include: ['cmi_data']` each carries its runtime data, shaped as
   * `GET /sessions/{id}` shapes it (read for the page's sessions in one query).
   */
  async list(
    scope: TenantScope,
    filter: SessionFilter & { limit?: number; cursor?: string; include?: readonly 'cmi_data'[] },
  ) {
    const limit = filter.limit ?? 50
    const after = sessionCursor(filter.cursor)
    const { data: page, next_cursor } = await repo.listSessions(
      this.#db,
      scope,
      filter,
      limit,
      after,
    )
    const withData = filter.include?.includes('cmi_data') === true
    const values = new Map<string, ScoValuesTable[]>()
    if (withData) {
      const ids = page.map((r) => r.id)
      for (const v of await findSessionValues(this.#db, scope, ids)) {
        const list = values.get(v.session_id)
        if (list) list.push(v)
        else values.set(v.session_id, [v])
      }
    }
    const counts = withData ? await this.#trackedCounts(scope, page) : new Map()
    const xapiIds = page.filter((r) => r.scorm_version === null).map((r) => r.id)
    const summaries = await statementSummaries(this.#db, scope, xapiIds)
    return {
      sessions: page.map((r) => ({
        id: r.id,
        ...toSessionSummary(r),
        user_id: r.learner_id,
        dispatch_id: r.dispatch_id,
        attempt: r.attempt_number,
        created_at: r.created_at,
        ...(withData && {
          cmi_data: cmiData(values.get(r.id) ?? [], counts.get(r.version_id) ?? 0),
        }),
        ...(summaries.has(r.id) && { xapi: summaries.get(r.id) }),
      })),
      next_cursor,
    }
  }

  /**
   * The whole filtered list as CSV, produced a page at a time, so memory does not grow with the
   * number of rows (100 000 rows stream in constant memory).
   */
  async *csv(scope: TenantScope, filter: SessionFilter): AsyncGenerator<string> {
    yield `${SESSION_CSV_COLUMNS.join(',')}\r\n`
    // Each page seeks past the previous page's last row: no OFFSET, no row read twice.
    let after: KeysetPosition | undefined
    for (;;) {
      const page = await repo.listSessions(this.#db, scope, filter, 1000, after)
      const xapiIds = page.data.filter((r) => r.scorm_version === null).map((r) => r.id)
      const xapi = await statementSummaries(this.#db, scope, xapiIds)
      if (page.data.length) yield page.data.map((r) => csvRow(r, xapi.get(r.id))).join('')
      if (page.next_cursor === null) return
      after = cursorPosition(page.next_cursor)
    }
  }
}
