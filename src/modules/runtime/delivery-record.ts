import type { Executor } from '../../infra/db/schema.ts'
import type {
  ScoDeliveriesTable,
  ScoStatesTable,
  SessionsTable,
} from '../../infra/db/tables/sessions.ts'
import { endSession, entrySize, initialValues, type LaunchData } from '../scorm/data-model/index.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import { mergeScoStatus, statusOfRow, updateSessionProgress } from '../sessions/session-progress.ts'
import { scoStatus } from '../sessions/session-status.ts'
import { sessionSeconds, sessionTimeIso } from '../sessions/session-time.ts'
import { reportedResults } from './attempt-sequencing.ts'
import * as repo from './runtime.repository.ts'
import type { Loaded } from './runtime.types.ts'
import * as scoValues from './sco-values.repository.ts'

/**
 * Writing a SCO's runtime record, and ending a delivery (a launch of a SCO): the parts of the
 * runtime that turn data-model values into the session's stored progress.
 *
 * Two sets of values meet here. A launch's `values` are its data model's: what the LMS supplied
 * at launch plus what its commits set — what the SCO reads, and what the next commit is
 * validated against. The SCO's `record` (`sco_values`) is every element's latest committed value
 * over all launches of the attempt: a commit writes the elements it changed, and nothing else
 * replaces or removes them, so a new launch that starts afresh (or commits nothing) never loses
 * what earlier launches recorded.
 */

/** One open launch's data: its values, the SCO's record, and whose commits they are. */
export interface LaunchRecord {
  deliveryId: string
  values: Readonly<Record<string, string>>
  record: Readonly<Record<string, string>>
}

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

/** Elements of `candidates` whose value differs from the record's. */
export function changedElements(
  record: Readonly<Record<string, string>>,
  candidates: Readonly<Record<string, string>>,
): Record<string, string> {
  const changed: Record<string, string> = {}
  for (const [element, value] of Object.entries(candidates)) {
    if (record[element] !== value) changed[element] = value
  }
  return changed
}

/** Characters `changed` adds to (or removes from) the record: element names plus values. */
export function sizeChange(
  record: Readonly<Record<string, string>>,
  changed: Readonly<Record<string, string>>,
): number {
  let chars = 0
  for (const [element, value] of Object.entries(changed)) {
    const before = record[element]
    chars += entrySize(element, value) - (before === undefined ? 0 : entrySize(element, before))
  }
  return chars
}

/** Characters of runtime data the attempt's SCOs hold. */
export function attemptChars(states: readonly ScoStatesTable[]): number {
  let chars = 0
  for (const s of states) chars += Number(s.data_chars ?? 0)
  return chars
}

/** Characters of a set of values, counted as the data model counts them. */
export function valuesChars(values: Readonly<Record<string, string>>): number {
  let chars = 0
  for (const [element, value] of Object.entries(values)) chars += entrySize(element, value)
  return chars
}

/**
 * Elements the LMS sets anew for every launch (how this launch was entered, its mode and
 * credit). The record keeps the latest launch's: they describe the launch, not the learner's
 * work, so refreshing them never replaces anything a SCO committed.
 */
const PER_LAUNCH_ELEMENTS = new Set([
  'cmi.entry',
  'cmi.mode',
  'cmi.credit',
  'cmi.core.entry',
  'cmi.core.lesson_mode',
  'cmi.core.credit',
])

/**
 * What a new launch adds to the SCO's record: the elements it has that the record lacks, and
 * the per-launch elements whose value changed; with the characters that adds to the record.
 */
export function launchRecordUpdate(
  record: Readonly<Record<string, string>>,
  initial: Readonly<Record<string, string>>,
): { missing: Record<string, string>; refreshed: Record<string, string>; chars: number } {
  const missing: Record<string, string> = {}
  const refreshed: Record<string, string> = {}
  for (const [element, value] of Object.entries(initial)) {
    if (record[element] === undefined) missing[element] = value
    else if (PER_LAUNCH_ELEMENTS.has(element) && record[element] !== value) {
      refreshed[element] = value
    }
  }
  return { missing, refreshed, chars: valuesChars(missing) + sizeChange(record, refreshed) }
}

/** A launch's values rebuilt from its launch data and the record elements its commits wrote. */
export function launchValues(
  version: '1.2' | '2004',
  launchData: LaunchData,
  rows: readonly scoValues.ScoValueRow[],
  deliveryId: string,
): Record<string, string> {
  const values = initialValues(version, launchData)
  for (const row of rows) if (row.delivery_id === deliveryId) values[row.element] = row.value
  return values
}

export function recordOf(rows: readonly scoValues.ScoValueRow[]): Record<string, string> {
  const record: Record<string, string> = {}
  for (const row of rows) record[row.element] = row.value
  return record
}

/** What a write of a SCO's launch gives: its data, and the record elements it changed. */
export type ScoLaunchChange = LaunchRecord & { changed: Readonly<Record<string, string>> }

/** The SCO's row as a write of `launch` leaves it (nothing written). */
export function scoRowOf(
  loaded: Loaded,
  states: readonly ScoStatesTable[],
  itemId: string,
  launch: ScoLaunchChange,
  at: string,
  write: ScoStateWrite = {},
): ScoStatesTable {
  const { end, commit } = write
  const previous = states.find((s) => s.item_id === itemId)
  const status = mergeScoStatus(
    previous ? statusOfRow(previous) : null,
    scoStatus(loaded.version, launch.values, true),
  )
  return {
    session_id: loaded.session.id,
    item_id: itemId,
    tenant_id: loaded.session.tenant_id,
    mode: loaded.session.mode,
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
    data_chars: Number(previous?.data_chars ?? 0) + sizeChange(launch.record, launch.changed),
    updated_at: at,
  }
}

/** The session's SCO rows with `row` in place of its SCO's. */
export function withScoRow(states: readonly ScoStatesTable[], row: ScoStatesTable) {
  return [...states.filter((s) => s.item_id !== row.item_id), row]
}

/**
 * Writes one SCO's row and the record elements in `changed`; returns the session's rows as they
 * now are, or null when a commit's compare-and-set found the delivery elsewhere (ended, replaced,
 * or another commit first) — then nothing was written.
 */
export async function saveScoState(
  trx: Executor,
  loaded: Loaded,
  states: ScoStatesTable[],
  itemId: string,
  launch: ScoLaunchChange,
  at: string,
  write: ScoStateWrite = {},
): Promise<ScoStatesTable[] | null> {
  const { commit } = write
  const previous = states.find((s) => s.item_id === itemId)
  const row = scoRowOf(loaded, states, itemId, launch, at, write)
  const scope = scopeOfSession(loaded.session)
  if (commit) {
    if (!(await repo.advanceScoState(trx, scope, row, commit.expected))) return null
  } else if (previous) {
    await repo.updateScoState(trx, scope, row)
  } else {
    await repo.upsertScoState(trx, scope, row)
  }
  const key = { sessionId: loaded.session.id, itemId, deliveryId: launch.deliveryId }
  if (Object.keys(launch.changed).length > 0) {
    await scoValues.writeScoValues(trx, scope, key, launch.changed)
  }
  return withScoRow(states, row)
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
 * Ends a delivery: total time, suspend/resume, final statuses, and the session's events. The
 * record gets what the final commit set (`accepted`) and what ending evaluated (statuses, total
 * time). With `commit` (a final commit), null when its compare-and-set fails (nothing written).
 */
export async function finishDelivery(
  trx: Executor,
  loaded: Loaded,
  states: ScoStatesTable[],
  itemId: string,
  at: string,
  launch: LaunchRecord & { accepted?: Readonly<Record<string, string>> },
  commit?: ScoStateWrite['commit'],
): Promise<SessionsTable | null> {
  const { values } = launch
  const outcome = endSession(
    loaded.version,
    { version: loaded.version, values },
    { navRequest: values['adl.nav.request'] },
  )
  // What ending evaluated (statuses, total time) is recorded for elements this launch holds; an
  // element it never had (a status a fresh launch never set) keeps the value recorded before,
  // and is not recorded as the data model's default `unknown`: this launch's recorded elements
  // are what it reported to the sequencer (delivery-results.ts), where a SCO's own `unknown`
  // counts (CTS CM-15) and a default must not (it would hide a cmi.objectives entry, OB-06).
  const evaluated = changedElements(values, outcome.values)
  for (const element of Object.keys(evaluated)) {
    const never = values[element] === undefined
    if (never && (launch.record[element] !== undefined || evaluated[element] === 'unknown')) {
      delete evaluated[element]
    }
  }
  const changed = changedElements(launch.record, { ...launch.accepted, ...evaluated })
  const saved = await saveScoState(
    trx,
    loaded,
    states,
    itemId,
    { ...launch, values: outcome.values, changed },
    at,
    {
      end: { carry: outcome.carry, totalTime: outcome.totalTime, suspended: outcome.suspended },
      ...(commit && { commit }),
    },
  )
  if (!saved) return null
  const raw =
    loaded.version === '2004' ? values['cmi.session_time'] : values['cmi.core.session_time']
  return updateSessionProgress(trx, loaded.session, {
    version: loaded.version,
    itemCount: loaded.trackedCount,
    at,
    scos: saved,
    sequencing: loaded.sequencing && {
      seq: loaded.sequencing,
      itemId,
      results: reportedResults(
        changedElements(launch.record, { ...launch.accepted, ...known(evaluated) }),
        outcome.values,
        true,
      ),
    },
    ended: {
      suspended: outcome.suspended,
      sessionTime: sessionTimeIso(loaded.version, raw),
      seconds: sessionSeconds(loaded.version, raw),
    },
  })
}

/**
 * Values ending evaluated that say something: a status the SCO never set reads `unknown`, the
 * data model's default, which is no report (it would hide a cmi.objectives entry of the primary
 * objective from the sequencer).
 */
function known(evaluated: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(evaluated).filter(([, v]) => v !== 'unknown'))
}
