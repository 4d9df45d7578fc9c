import type { Executor } from '../../infra/db/schema.ts'
import type { ScoStatesTable, SessionsTable } from '../../infra/db/tables/sessions.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import { sessionEventData } from './session.mapper.ts'
import * as repo from './session.repository.ts'
import { type Completion, rollup, type ScoStatus } from './session-status.ts'

const COMPLETION_ORDER: Record<Completion, number> = {
  'not attempted': 0,
  incomplete: 1,
  completed: 2,
}

/**
 * A SCO's status within one attempt only moves forward in completion (a relaunch that starts
 * fresh does not undo "completed"); success and score follow the latest report that has them.
 */
export function mergeScoStatus(previous: ScoStatus | null, next: ScoStatus): ScoStatus {
  if (!previous) return next
  const completion =
    COMPLETION_ORDER[next.completion] >= COMPLETION_ORDER[previous.completion]
      ? next.completion
      : previous.completion
  const hasScore = next.scaled !== null || next.raw !== null
  return {
    completion,
    success: next.success !== 'unknown' ? next.success : previous.success,
    scaled: hasScore ? next.scaled : previous.scaled,
    raw: hasScore ? next.raw : previous.raw,
    min: hasScore ? next.min : previous.min,
    max: hasScore ? next.max : previous.max,
    progressMeasure: next.progressMeasure ?? previous.progressMeasure,
  }
}

export function statusOfRow(row: ScoStatesTable): ScoStatus {
  return {
    completion: row.completion_status as Completion,
    success: row.success_status as ScoStatus['success'],
    scaled: row.score_scaled,
    raw: row.score_raw,
    min: row.score_min,
    max: row.score_max,
    progressMeasure: row.progress_measure,
  }
}

/**
 * Recomputes the session from its SCOs and writes the session events its transitions cause,
 * in the caller's transaction: `session.completed` once when it reaches completed or passed,
 * `session.failed` once when a launch ends failed, `session.suspended` each time the learner
 * leaves mid-course with suspend. In-progress commits never write an event otherwise.
 */
export async function updateSessionProgress(
  trx: Executor,
  session: SessionsTable,
  input: {
    itemCount: number
    at: string
    /** Set when a launch (delivery) of a SCO just ended. */
    ended?: { suspended: boolean; sessionTime: string | null; seconds: number }
    /** The session's SCO rows when the caller already has them current; read otherwise. */
    scos?: ScoStatesTable[]
  },
): Promise<SessionsTable> {
  const scos = input.scos ?? (await repo.findScoStates(trx, session.id))
  const r = rollup(input.itemCount, scos.map(statusOfRow))
  const reachedCompletion = r.completion === 'completed' || r.success === 'passed'
  const next: SessionsTable = {
    ...session,
    completion_status: r.completion,
    success_status: r.success,
    score_scaled: r.score.scaled,
    score_raw: r.score.raw,
    score_min: r.score.min,
    score_max: r.score.max,
    progress_percent: r.progressPercent,
    updated_at: input.at,
    completed_at: session.completed_at ?? (reachedCompletion ? input.at : null),
    ...(input.ended && {
      suspended: input.ended.suspended && !reachedCompletion ? 1 : 0,
      session_time: input.ended.sessionTime ?? session.session_time,
      time_spent_seconds: Number(session.time_spent_seconds) + input.ended.seconds,
    }),
  }
  const scope = { tenantId: session.tenant_id, mode: session.mode }
  const event = async (type: string) =>
    recordAuditEvent(trx, scope, {
      type,
      entityType: 'session',
      entityId: session.id,
      severity: type === 'session.failed' ? 'warn' : 'info',
      data: sessionEventData(next),
      occurredAt: input.at,
    })
  if (reachedCompletion && !session.completed_event_at) {
    next.completed_event_at = input.at
    await event('session.completed')
  }
  if (input.ended && r.success === 'failed' && !session.failed_event_at) {
    next.failed_event_at = input.at
    await event('session.failed')
  }
  if (input.ended?.suspended && !reachedCompletion) await event('session.suspended')
  await repo.saveSessionProgress(trx, next)
  return next
}
