import type { Kysely } from 'kysely'
import type { Database, Executor } from '../../infra/db/schema.ts'
import type { ScoStatesTable, SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
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
import { readGlobals, storedState } from './attempt-sequencing.ts'
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
import type { RuntimeLoader } from './runtime-loader.ts'
import * as scoValues from './sco-values.repository.ts'
import { readSharedData, sharedDataScope } from './shared-data.ts'

/**
 * A finished attempt (completed or passed, or replaced by a newer attempt) is history: its
 * launch URL reopens it in review mode, and nothing a review launch does is stored.
 */
export function inReview(session: SessionsTable): boolean {
  return session.open === 0 || isFinished(session)
}

/**
 * Starting deliveries (launches of a SCO, docs/runtime-protocol.md): ends the session's open
 * launch, builds the new one's launch data and names it on the SCO's row.
 */
export class DeliveryService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  readonly #loader: RuntimeLoader

  constructor(deps: { db: Kysely<Database>; clock: Clock; loader: RuntimeLoader }) {
    this.#db = deps.db
    this.#clock = deps.clock
    this.#loader = deps.loader
  }

  /**
   * Starts one launch of an item; a launch left open (tab closed, no Terminate) is ended first.
   * In a finished attempt the launch is a review: the SCO reads what was recorded and nothing it
   * does is stored.
   */
  async create(sessionId: string, itemId: string) {
    const at = this.#clock.now().toISOString()
    return this.#db.transaction().execute(async (trx) => {
      const loaded = await this.#loader.load(trx, sessionId)
      const scope = scopeOfSession(loaded.session)
      const item = loaded.items.find((i) => i.id === itemId && i.launchable)
      if (!item?.href)
        throw new AppError('not_found', `No launchable item ${itemId} in this course`)
      await endOpenDeliveries(trx, loaded, at)
      const states = await repo.findScoStates(trx, scope, sessionId)
      const previous = states.find((s) => s.item_id === itemId)
      const review = inReview(loaded.session)
      const launchData = review
        ? reviewLaunchData(
            loaded,
            previous,
            recordOf(await scoValues.findScoValues(trx, scope, sessionId, itemId)),
          )
        : await launchDataFor(trx, loaded, item, previous)
      const deliveryId = newId('scd')
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
    })
  }
}

/** Ends every open launch of the session; a normal one is finished with its committed data. */
async function endOpenDeliveries(trx: Executor, loaded: Loaded, at: string): Promise<void> {
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
  // Writes the current item with the progress (saveSessionProgress).
  await updateSessionProgress(
    trx,
    { ...loaded.session, current_item_id: itemId },
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
