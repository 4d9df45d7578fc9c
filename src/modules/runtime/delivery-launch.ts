/**
 * Starting deliveries (launches of a SCO, docs/runtime-protocol.md): ends the session's open
 * launch, builds the new one's launch data and names it on the SCO's row. Which item may be
 * launched is decided before (navigation.service.ts).
 */
import type { Executor } from '../../infra/db/schema.ts'
import type { ScoStatesTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import { newId } from '../../shared/ids.ts'
import {
  carried,
  DEFAULT_MAX_TOTAL_CHARS,
  initialValues,
  type LaunchData,
} from '../scorm/data-model/index.ts'
import { createTrackingState, launchObjectives } from '../scorm/sequencing/index.ts'
import type { CourseItem } from '../sessions/course-items.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import { mergeScoStatus, statusOfRow, updateSessionProgress } from '../sessions/session-progress.ts'
import { isFinished, scoStatus } from '../sessions/session-status.ts'
import { readGlobals, sequencerEndsAttempt, storedState } from './attempt-sequencing.ts'
import {
  attemptChars,
  finishDelivery,
  lastAppliedSeq,
  launchRecordUpdate,
  launchValues,
  recordOf,
  valuesChars,
} from './delivery-record.ts'
import { buildLaunchData } from './launch-data.builder.ts'
import * as repo from './runtime.repository.ts'
import type { Loaded } from './runtime.types.ts'
import * as scoValues from './sco-values.repository.ts'
import { readSharedData, sharedDataScope } from './shared-data.ts'

/**
 * A finished attempt is history: its launch URL reopens it in review mode, and nothing a review
 * launch does is stored. Finished means closed (replaced by a newer attempt, or ended by its
 * sequencer: exit all, the flow past the end), or, where no sequencer decides the end (SCORM
 * 1.2, a one-SCO SCORM 2004 course), completed or passed. A multi-activity SCORM 2004 attempt
 * whose root rolled up to completed goes on until the sequencer ends it (CTS OB-10a, RU-13e).
 */
export function inReview(loaded: Pick<Loaded, 'session' | 'sequencing'>): boolean {
  const { session } = loaded
  if (session.open === 0) return true
  return !sequencerEndsAttempt(loaded.sequencing) && isFinished(session)
}

/** What `POST …/deliveries` answers (docs/runtime-protocol.md §3). */
export interface DeliveryAnswer {
  delivery_id: string
  item_id: string
  scorm_version: '1.2' | '2004'
  href: string
  launch_data: LaunchData
  data_model_options: Loaded['options']
}

/**
 * One launch of `itemId` in the caller's transaction (`POST …/deliveries` asks for, and the one
 * a navigation request delivers). `deliveryId` names it when the caller had to know
 * the id first (the sequencer's compare-and-set write names the delivery it launches).
 */
export async function launchItem(
  trx: Executor,
  loaded: Loaded,
  itemId: string,
  at: string,
  deliveryId: string = newId('scd'),
): Promise<DeliveryAnswer> {
  const sessionId = loaded.session.id
  const scope = scopeOfSession(loaded.session)
  const item = loaded.items.find((i) => i.id === itemId && i.launchable)
  if (!item?.href) throw new AppError('not_found', `No launchable item ${itemId} in this course`)
  await endOpenDeliveries(trx, loaded, at)
  const states = await repo.findScoStates(trx, scope, sessionId)
  const previous = states.find((s) => s.item_id === itemId)
  const review = inReview(loaded)
  const launchData = review
    ? reviewLaunchData(
        loaded,
        previous,
        recordOf(await scoValues.findScoValues(trx, scope, sessionId, itemId)),
      )
    : await launchDataFor(trx, loaded, item, previous)
  await repo.insertDelivery(trx, scope, {
    id: deliveryId,
    session_id: sessionId,
    item_id: itemId,
    tenant_id: scope.tenantId,
    mode: scope.mode,
    launch_data: JSON.stringify(launchData),
    last_seq: 0,
    ended_at: null,
    created_at: at,
    updated_at: at,
  })
  const initial = initialValues(loaded.version, launchData)
  if (!review) await openOnScoRow(trx, loaded, { itemId, deliveryId, initial, at })
  const limit = loaded.options.maxTotalChars ?? DEFAULT_MAX_TOTAL_CHARS
  return {
    delivery_id: deliveryId,
    item_id: itemId,
    scorm_version: loaded.version,
    href: item.href,
    launch_data: launchData,
    data_model_options: {
      ...loaded.options,
      // What the attempt has left of its runtime-data limit, beyond what the SCO starts with.
      maxTotalChars: valuesChars(initial) + Math.max(0, limit - attemptChars(states)),
    },
  }
}

/** Ends every open launch of the session; a normal one is finished with its committed data. */
export async function endOpenDeliveries(trx: Executor, loaded: Loaded, at: string): Promise<void> {
  const scope = scopeOfSession(loaded.session)
  const sessionId = loaded.session.id
  for (const open of await repo.openDeliveries(trx, scope, sessionId)) {
    const launchData = JSON.parse(open.launch_data) as LaunchData
    const current = await repo.findScoStates(trx, scope, sessionId)
    const row = current.find((s) => s.item_id === open.item_id)
    await repo.endDelivery(trx, scope, open.id, lastAppliedSeq(open, row), at)
    if (launchData.mode === 'review' || row?.delivery_id !== open.id) continue
    const rows = await scoValues.findScoValues(trx, scope, sessionId, open.item_id)
    const values = launchValues(loaded.version, launchData, rows, open.id)
    const launch = { deliveryId: open.id, values, record: recordOf(rows) }
    const ended = await finishDelivery(trx, loaded, current, open.item_id, at, launch)
    if (ended) loaded.session = ended
  }
}

async function launchDataFor(
  trx: Executor,
  loaded: Loaded,
  item: CourseItem,
  previous: ScoStatesTable | undefined,
): Promise<LaunchData> {
  const { session } = loaded
  const sharedStores = await readSharedData(
    trx,
    session,
    sharedDataScope(loaded.manifest, session),
    loaded.version === '2004' ? (item.manifestItem?.sharedData ?? []).map((d) => d.targetID) : [],
  )
  const launches = await repo.countDeliveries(trx, scopeOfSession(session), session.id, item.id)
  return buildLaunchData({
    sharedStores,
    objectiveValues: await objectiveValues(trx, loaded, item.id),
    version: loaded.version,
    learnerId: session.learner_id,
    learnerName: session.learner_name,
    item: item.manifestItem,
    previous: previous
      ? {
          suspended: previous.suspended === 1,
          totalTime: previous.total_time,
          carry: JSON.parse(previous.carry) as Record<string, string>,
        }
      : null,
    launchedBefore: launches > 0,
  })
}

/**
 * SCORM 2004: each objective's values as the activity's tracking state and its read maps
 * give them (global objectives another SCO or course wrote), for `cmi.objectives.n`.
 */
async function objectiveValues(
  trx: Executor,
  loaded: Loaded,
  itemId: string,
): Promise<Map<string, Record<string, string>>> {
  const seq = loaded.sequencing
  if (!seq) return new Map()
  const state = storedState(loaded.session) ?? createTrackingState()
  const globals = await readGlobals(trx, loaded.session, seq)
  const objectives = launchObjectives(seq.tree, state, itemId, { globals })
  return new Map(objectives.map((o) => [o.id, o.values]))
}

/**
 * Names the new launch on the SCO's row (its compare-and-set position) and adds the launch's
 * LMS-supplied values the record does not hold yet; recorded values are never replaced.
 */
async function openOnScoRow(
  trx: Executor,
  loaded: Loaded,
  launch: { itemId: string; deliveryId: string; initial: Record<string, string>; at: string },
): Promise<void> {
  const { itemId, deliveryId, at } = launch
  const sessionId = loaded.session.id
  const scope = scopeOfSession(loaded.session)
  const states = await repo.findScoStates(trx, scope, sessionId)
  const previous = states.find((s) => s.item_id === itemId)
  const record = recordOf(await scoValues.findScoValues(trx, scope, sessionId, itemId))
  const { missing, refreshed, chars } = launchRecordUpdate(record, launch.initial)
  const status = previous ? statusOfRow(previous) : null
  const launched = mergeScoStatus(status, scoStatus(loaded.version, {}, true))
  await repo.upsertScoState(trx, scope, {
    session_id: sessionId,
    item_id: itemId,
    tenant_id: scope.tenantId,
    mode: scope.mode,
    carry: previous?.carry ?? '{}',
    completion_status: launched.completion,
    success_status: launched.success,
    score_scaled: launched.scaled,
    score_raw: launched.raw,
    score_min: launched.min,
    score_max: launched.max,
    progress_measure: launched.progressMeasure,
    total_time: previous?.total_time ?? null,
    suspended: 0,
    launched: 1,
    delivery_id: deliveryId,
    delivery_seq: 0,
    data_chars: Number(previous?.data_chars ?? 0) + chars,
    updated_at: at,
  })
  const key = { sessionId, itemId, deliveryId: null }
  if (Object.keys(missing).length > 0) {
    await scoValues.writeScoValues(trx, scope, key, missing, 'add-missing')
  }
  if (Object.keys(refreshed).length > 0) await scoValues.writeScoValues(trx, scope, key, refreshed)
  // Writes the current item with the progress (saveSessionProgress). The learner is back: the
  // session is no longer suspended, so leaving it suspended again is a new transition.
  await updateSessionProgress(
    trx,
    { ...loaded.session, current_item_id: itemId, suspended: 0 },
    {
      version: loaded.version,
      itemCount: loaded.trackedCount,
      at,
      sequencing: loaded.sequencing && { seq: loaded.sequencing, itemId, results: null },
    },
  )
}

/**
 * The launch of a finished attempt's SCO: its recorded learner-writable values, its total time,
 * cmi.mode = review and no credit, so the content shows the attempt as it was.
 */
function reviewLaunchData(
  loaded: Loaded,
  row: ScoStatesTable | undefined,
  record: Record<string, string>,
): LaunchData {
  const { session, version } = loaded
  return {
    learnerId: session.learner_id,
    learnerName: session.learner_name,
    credit: 'no-credit',
    mode: 'review',
    entry: '',
    ...(row?.total_time && { totalTime: row.total_time }),
    values: carried(version, record),
  }
}

/**
 * Suspend All leaves the SCO being shown suspended whatever its cmi.exit said (SN book,
 * TB.2.3): its next launch, by Resume All, has cmi.entry `resume` and its learner-writable
 * values back.
 */
export async function suspendLeftDelivery(
  trx: Executor,
  loaded: Loaded,
  itemId: string,
  at: string,
): Promise<void> {
  const sessionId = loaded.session.id
  const scope = scopeOfSession(loaded.session)
  const row = (await repo.findScoStates(trx, scope, sessionId)).find((s) => s.item_id === itemId)
  if (!row || row.suspended === 1) return
  const record = recordOf(await scoValues.findScoValues(trx, scope, sessionId, itemId))
  const carry = JSON.stringify(carried(loaded.version, record))
  await repo.updateScoState(trx, scope, { ...row, suspended: 1, carry, updated_at: at })
}
