import type { Executor } from '../../infra/db/schema.ts'
import type {
  ScoDeliveriesTable,
  ScoStatesTable,
  SessionsTable,
} from '../../infra/db/tables/sessions.ts'
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
/** How a write of a SCO's row relates to its deliveries. */
export interface ScoStateWrite {
  /** Set when a delivery ends with this write: its carry, total time and suspension. */
  end?: { carry: Record<string, string>; totalTime: string; suspended: boolean }
  /**
   * A commit's write: applied only if the delivery is open on the row at `expected.seq`
   * (compare-and-set), moving it to `seq`. Without it the row is written as it stands.
   */
  commit?: { expected: repo.DeliveryPosition; seq: number }
}

/**
 * Writes one SCO's row; returns the session's rows as they now are, or null when a commit's
 * compare-and-set found the delivery elsewhere (ended, replaced, or another commit first).
 */
export async function saveScoState(
  trx: Executor,
  loaded: Loaded,
  states: ScoStatesTable[],
  itemId: string,
  values: Readonly<Record<string, string>>,
  at: string,
  write: ScoStateWrite = {},
): Promise<ScoStatesTable[] | null> {
  const { end, commit } = write
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
    delivery_id: end ? null : (commit?.expected.deliveryId ?? previous?.delivery_id ?? null),
    delivery_seq: commit ? commit.seq : Number(previous?.delivery_seq ?? 0),
    updated_at: at,
  }
  if (commit) {
    if (!(await repo.advanceScoState(trx, row, commit.expected))) return null
  } else if (previous) {
    await repo.updateScoState(trx, row)
  } else {
    await repo.upsertScoState(trx, row)
  }
  return [...states.filter((s) => s.item_id !== itemId), row]
}

/** The last commit a delivery applied: its SCO row's while it is open, its own once ended. */
export function lastAppliedSeq(
  delivery: ScoDeliveriesTable,
  row: ScoStatesTable | undefined,
): number {
  return !delivery.ended_at && row?.delivery_id === delivery.id
    ? Number(row.delivery_seq)
    : Number(delivery.last_seq)
}

/**
 * Ends a delivery: total time, suspend/resume, final statuses, and the session's events. With
 * `commit` (a final commit), null when its compare-and-set fails (nothing written).
 */
export function finishDelivery(
  trx: Executor,
  loaded: Loaded,
  states: ScoStatesTable[],
  itemId: string,
  at: string,
): Promise<SessionsTable>
export function finishDelivery(
  trx: Executor,
  loaded: Loaded,
  states: ScoStatesTable[],
  itemId: string,
  at: string,
  finalValues: Readonly<Record<string, string>>,
  commit: NonNullable<ScoStateWrite['commit']>,
): Promise<SessionsTable | null>
export async function finishDelivery(
  trx: Executor,
  loaded: Loaded,
  states: ScoStatesTable[],
  itemId: string,
  at: string,
  finalValues?: Readonly<Record<string, string>>,
  commit?: ScoStateWrite['commit'],
): Promise<SessionsTable | null> {
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
    end: { carry: outcome.carry, totalTime: outcome.totalTime, suspended: outcome.suspended },
    ...(commit && { commit }),
  })
  if (!scos) return null
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
