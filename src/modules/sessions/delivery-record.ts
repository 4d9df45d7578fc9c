import type { Executor } from '../../infra/db/schema.ts'
import type { ScoStatesTable, SessionsTable } from '../../infra/db/tables/sessions.ts'
import { endSession } from '../scorm/data-model/index.ts'
import type { Loaded } from './runtime.service.ts'
import * as repo from './session.repository.ts'
import { mergeScoStatus, statusOfRow, updateSessionProgress } from './session-progress.ts'
import { scoStatus } from './session-status.ts'
import { sessionSeconds, sessionTimeIso } from './session-time.ts'

/**
 * Writing a SCO's runtime record, and ending a delivery (a launch of a SCO): the parts of the
 * runtime that turn data-model values into the session's stored progress.
 */
/** Writes one SCO's row; returns the session's rows as they now are. */
export async function saveScoState(
  trx: Executor,
  loaded: Loaded,
  states: ScoStatesTable[],
  itemId: string,
  values: Readonly<Record<string, string>>,
  at: string,
  end?: { carry: Record<string, string>; totalTime: string; suspended: boolean },
): Promise<ScoStatesTable[]> {
  const previous = states.find((s) => s.item_id === itemId)
  const status = mergeScoStatus(
    previous ? statusOfRow(previous) : null,
    scoStatus(loaded.version, values, true),
  )
  const row: ScoStatesTable = {
    session_id: loaded.session.id,
    item_id: itemId,
    tenant_id: loaded.session.tenant_id,
    mode: loaded.session.mode,
    state: JSON.stringify(values),
    carry: end ? JSON.stringify(end.carry) : (previous?.carry ?? '{}'),
    completion_status: status.completion,
    success_status: status.success,
    score_scaled: status.scaled,
    score_raw: status.raw,
    score_min: status.min,
    score_max: status.max,
    progress_measure: status.progressMeasure,
    total_time: end ? end.totalTime : (previous?.total_time ?? null),
    suspended: end?.suspended ? 1 : 0,
    launched: 1,
    updated_at: at,
  }
  await (previous ? repo.updateScoState(trx, row) : repo.upsertScoState(trx, row))
  return [...states.filter((s) => s.item_id !== itemId), row]
}

/** Ends a delivery: total time, suspend/resume, final statuses, and the session's events. */
export async function finishDelivery(
  trx: Executor,
  loaded: Loaded,
  states: ScoStatesTable[],
  itemId: string,
  at: string,
  finalValues?: Readonly<Record<string, string>>,
): Promise<SessionsTable> {
  const values =
    finalValues ??
    (JSON.parse(states.find((s) => s.item_id === itemId)?.state ?? '{}') as Record<string, string>)
  const outcome = endSession(
    loaded.version,
    { version: loaded.version, values },
    {
      navRequest: values['adl.nav.request'],
    },
  )
  const scos = await saveScoState(trx, loaded, states, itemId, outcome.values, at, {
    carry: outcome.carry,
    totalTime: outcome.totalTime,
    suspended: outcome.suspended,
  })
  const raw =
    loaded.version === '2004' ? values['cmi.session_time'] : values['cmi.core.session_time']
  return updateSessionProgress(trx, loaded.session, {
    itemCount: loaded.trackedCount,
    at,
    scos,
    ended: {
      suspended: outcome.suspended,
      sessionTime: sessionTimeIso(loaded.version, raw),
      seconds: sessionSeconds(loaded.version, raw),
    },
  })
}
