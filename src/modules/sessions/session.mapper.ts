import type {
  ScoStatesTable,
  ScoValuesTable,
  SessionsTable,
} from '../../infra/db/tables/sessions.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { isoFromSeconds, sessionTimeIso } from './session-time.ts'

export interface Score {
  scaled: number | null
  raw: number | null
  min: number | null
  max: number | null
}

/** The spec's session fields, shared by the API and by session events. */
export interface SessionSummary {
  session_id: string
  package_id: string
  learner_id: string
  completion_status: SessionsTable['completion_status']
  success_status: SessionsTable['success_status']
  progress_percent: number
  score: Score
  session_time: string | null
  time_spent_seconds: number
  updated_at: string
}

export function toSessionSummary(row: SessionsTable): SessionSummary {
  return {
    session_id: row.id,
    package_id: row.package_id,
    learner_id: row.learner_id,
    completion_status: row.completion_status,
    success_status: row.success_status,
    progress_percent: Number(row.progress_percent ?? 0),
    score: {
      scaled: row.score_scaled,
      raw: row.score_raw,
      min: row.score_min,
      max: row.score_max,
    },
    session_time: sessionTimeIso('2004', row.session_time),
    time_spent_seconds: Math.round(Number(row.time_spent_seconds)),
    updated_at: row.updated_at,
  }
}

/** Data of session.* events: the spec's fields plus the dispatch when there is one. */
export function sessionEventData(row: SessionsTable): Record<string, unknown> {
  return { ...toSessionSummary(row), dispatch_id: row.dispatch_id, attempt: row.attempt_number }
}

/**
 * A session's runtime data as the API shows it: the elements directly for a one-SCO course,
 * keyed by item id for several.
 */
export function cmiData(
  values: readonly Pick<ScoValuesTable, 'item_id' | 'element' | 'value'>[],
  itemCount: number,
): Record<string, unknown> {
  const byItem = new Map<string, Record<string, string>>()
  for (const v of values) {
    let record = byItem.get(v.item_id)
    if (!record) {
      record = {}
      byItem.set(v.item_id, record)
    }
    record[v.element] = v.value
  }
  if (itemCount <= 1) return [...byItem.values()][0] ?? {}
  return Object.fromEntries(byItem)
}

/**
 * The session as `GET /sessions/{id}` returns it: the nested form and the flat form of the
 * spec side by side, plus the runtime data (flat for one SCO, keyed by item for several). Every
 * time is an ISO 8601 duration; the SCO's own values stay in `cmi_data`.
 */
export function toSessionDetail(
  row: SessionsTable,
  scos: ScoStatesTable[],
  values: readonly Pick<ScoValuesTable, 'item_id' | 'element' | 'value'>[],
  itemCount: number,
) {
  const summary = toSessionSummary(row)
  const version = row.scorm_version === '1.2' ? '1.2' : '2004'
  return {
    session: {
      session_id: row.id,
      completion_status: row.completion_status,
      success_status: row.success_status,
      score: { scaled: row.score_scaled, raw: row.score_raw },
    },
    id: row.id,
    ...summary,
    user_id: row.learner_id,
    learner_name: row.learner_name,
    version_id: row.version_id,
    dispatch_id: row.dispatch_id,
    attempt: row.attempt_number,
    scorm_version: row.scorm_version,
    total_time: isoFromSeconds(Number(row.time_spent_seconds)),
    suspended: row.suspended === 1,
    launch_count: row.launch_count,
    created_at: row.created_at,
    completed_at: row.completed_at,
    scos: scos.map((s) => ({
      item_id: s.item_id,
      completion_status: s.completion_status,
      success_status: s.success_status,
      score: { scaled: s.score_scaled, raw: s.score_raw, min: s.score_min, max: s.score_max },
      progress_measure: s.progress_measure,
      total_time: sessionTimeIso(version, s.total_time),
      updated_at: s.updated_at,
    })),
    cmi_data: cmiData(values, itemCount),
  }
}

/** The tenant scope a session row belongs to (for calls that found it by a signed token). */
export function scopeOfSession(session: Pick<SessionsTable, 'tenant_id' | 'mode'>): TenantScope {
  return { tenantId: session.tenant_id, mode: session.mode }
}
