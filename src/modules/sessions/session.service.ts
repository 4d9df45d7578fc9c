import type { Kysely } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import type { ScoValuesTable, SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import { statementSummaries } from '../cmi5/statement-summary.ts'
import type { StoredManifest } from '../packages/package-ingest.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { courseItems, trackedItems } from './course-items.ts'
import { sequencingView } from './sequencing-view.ts'
import { cmiData, toSessionDetail, toSessionSummary } from './session.mapper.ts'
import * as repo from './session.repository.ts'
import { isoFromSeconds, sessionTimeIso } from './session-time.ts'

export interface SessionFilter {
  package_id?: string
  learner_id?: string
  dispatch_id?: string
  completion_status?: SessionsTable['completion_status']
  success_status?: SessionsTable['success_status']
  /** Sessions started at or after this instant. */
  from?: string
  /** Sessions started before this instant. */
  to?: string
  sort?: 'created_at' | 'updated_at'
  order?: 'asc' | 'desc'
}

type Cursor = { v: string; id: string }

function encodeCursor(row: SessionsTable, sort: 'created_at' | 'updated_at'): string {
  return Buffer.from(JSON.stringify({ v: row[sort], id: row.id })).toString('base64url')
}

function decodeCursor(cursor: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Cursor
    if (typeof value.v === 'string' && typeof value.id === 'string') return value
  } catch {}
  throw new AppError('validation_failed', 'cursor is not one this API issued')
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
] as const

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = String(value)
  // Quote when needed; a leading = + - @ is prefixed so spreadsheets never run it as a formula.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

function csvRow(row: SessionsTable): string {
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
    const scos = await repo.findScoStates(this.#db, row.id)
    const values = await repo.findSessionValues(this.#db, [row.id])
    const counts = await this.#trackedCounts([row.version_id])
    const detail = toSessionDetail(row, scos, values, counts.get(row.version_id) ?? 0)
    // SCORM 2004: the activity tree's status and the global objectives (issue 14.6).
    const sequencing = await sequencingView(this.#db, row)
    if (sequencing) return { ...detail, sequencing }
    // cmi5 and Tin Can sessions: what their statements amount to (modules/cmi5).
    if (row.scorm_version !== null) return detail
    const xapi = (await statementSummaries(this.#db, scope, [row.id])).get(row.id)
    return xapi ? { ...detail, xapi } : detail
  }

  /** How many tracked items each package version has (decides the shape of `cmi_data`). */
  async #trackedCounts(versionIds: readonly string[]): Promise<Map<string, number>> {
    const ids = [...new Set(versionIds)]
    if (ids.length === 0) return new Map()
    const rows = await this.#db
      .selectFrom('package_versions')
      .select(['id', 'manifest'])
      .where('id', 'in', ids)
      .execute()
    return new Map(
      rows.map((r) => [
        r.id,
        trackedItems(courseItems(JSON.parse(r.manifest) as StoredManifest)).length,
      ]),
    )
  }

  async #page(scope: TenantScope, filter: SessionFilter, limit: number, cursor?: Cursor) {
    const sort = filter.sort ?? 'created_at'
    const desc = (filter.order ?? 'desc') === 'desc'
    let query = this.#db
      .selectFrom('sessions')
      .selectAll()
      .where('tenant_id', '=', scope.tenantId)
      .where('mode', '=', scope.mode)
    if (filter.package_id) query = query.where('package_id', '=', filter.package_id)
    if (filter.learner_id) query = query.where('learner_id', '=', filter.learner_id)
    if (filter.dispatch_id) query = query.where('dispatch_id', '=', filter.dispatch_id)
    if (filter.completion_status)
      query = query.where('completion_status', '=', filter.completion_status)
    if (filter.success_status) query = query.where('success_status', '=', filter.success_status)
    if (filter.from) query = query.where('created_at', '>=', new Date(filter.from).toISOString())
    if (filter.to) query = query.where('created_at', '<', new Date(filter.to).toISOString())
    if (cursor) {
      const op = desc ? '<' : '>'
      query = query.where((eb) =>
        eb.or([eb(sort, op, cursor.v), eb.and([eb(sort, '=', cursor.v), eb('id', op, cursor.id)])]),
      )
    }
    return query
      .orderBy(sort, desc ? 'desc' : 'asc')
      .orderBy('id', desc ? 'desc' : 'asc')
      .limit(limit + 1)
      .execute()
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
    const rows = await this.#page(
      scope,
      filter,
      limit,
      filter.cursor ? decodeCursor(filter.cursor) : undefined,
    )
    const page = rows.slice(0, limit)
    const last = page.at(-1)
    const withData = filter.include?.includes('cmi_data') === true
    const values = new Map<string, ScoValuesTable[]>()
    if (withData) {
      for (const v of await repo.findSessionValues(
        this.#db,
        page.map((r) => r.id),
      )) {
        const list = values.get(v.session_id)
        if (list) list.push(v)
        else values.set(v.session_id, [v])
      }
    }
    const counts = withData ? await this.#trackedCounts(page.map((r) => r.version_id)) : new Map()
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
      next_cursor:
        rows.length > limit && last ? encodeCursor(last, filter.sort ?? 'created_at') : null,
    }
  }

  /**
   * The whole filtered list as CSV, produced a page at a time, so memory does not grow with the
   * number of rows (100 000 rows stream in constant memory).
   */
  async *csv(scope: TenantScope, filter: SessionFilter): AsyncGenerator<string> {
    yield `${SESSION_CSV_COLUMNS.join(',')}\r\n`
    let cursor: Cursor | undefined
    const sort = filter.sort ?? 'created_at'
    for (;;) {
      const rows = await this.#page(scope, filter, 1000, cursor)
      const page = rows.slice(0, 1000)
      if (page.length) yield page.map(csvRow).join('')
      const last = page.at(-1)
      if (rows.length <= 1000 || !last) return
      cursor = { v: last[sort], id: last.id }
    }
  }
}
