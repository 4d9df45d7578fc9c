import type { Executor } from '../../infra/db/schema.ts'
import type { ScoStatesTable } from '../../infra/db/tables/sessions.ts'
import { recordRuntimeWarnings } from '../packages/package.repository.ts'
import {
  type DataModelOptions,
  DEFAULT_MAX_TOTAL_CHARS,
  type Delta,
  validateDelta,
} from '../scorm/data-model/index.ts'
import { scopeOfSession, toSessionSummary } from '../sessions/session.mapper.ts'
import { type ProgressInput, updateSessionProgress } from '../sessions/session-progress.ts'
import { reportedResults } from './attempt-sequencing.ts'
import {
  attemptChars,
  changedElements,
  finishDelivery,
  saveScoState,
  sizeChange,
} from './delivery-record.ts'
import type { DeliveryChanges, LiveDelivery } from './live-deliveries.ts'
import * as repo from './runtime.repository.ts'
import type { Loaded } from './runtime.types.ts'
import { type RefusedValue, runtimeWarnings } from './runtime-warnings.ts'
import { sharedDataScope, sharedDataWrites, writeSharedData } from './shared-data.ts'

/*
 * Applying one commit's delta to a delivery whose rows are known (RuntimeCommits decides which:
 * the remembered ones, or ones just read): validation, the compare-and-set write of the SCO row,
 * the session's progress, and what the commit writes besides.
 */

/** What a commit carries besides its delta (docs/runtime-protocol.md). */
export interface CommitInput {
  deliveryId: string
  delta: Delta
  /** SetValue calls the player's data model refused, reported for the package's warnings. */
  refused: readonly RefusedValue[]
}

export type Answer = Record<string, unknown>

export interface Outcome {
  answer: Answer
  /** The delivery after the commit; null once it ended; absent when the commit changed nothing. */
  next?: LiveDelivery | null
  /** What the commit changed in `next`'s values and record, to fold in once it is stored. */
  changes?: DeliveryChanges
}

/**
 * Validates the delta against the delivery's values and writes what changed, if the delivery is
 * still open at `live.lastSeq` (the SCO row's compare-and-set comes first, so nothing is written
 * when it fails); null when it is not (the caller rereads). The answer, and the delivery as it
 * now is — null once the delta ended it.
 */
export async function apply(
  trx: Executor,
  live: LiveDelivery,
  input: CommitInput,
  at: string,
  options: DataModelOptions,
): Promise<Outcome | null> {
  const { loaded } = live
  const { delta } = input
  const result = validate(live, delta, options)
  const written = delta.final
    ? await writeFinal(trx, live, result, delta.seq, at)
    : await writeStep(trx, live, result, delta.seq, at)
  if (!written) return null
  await recordBesides(trx, loaded, input, result, at)
  const answer = appliedAnswer(delta, result, written.session)
  return { answer, next: written.next, ...(written.changes && { changes: written.changes }) }
}

export type Validated = ReturnType<typeof validateDelta>

/**
 * The delta checked against the delivery's values by the data model, with the session's
 * `options` (read for each commit), within the attempt's budget.
 */
export function validate(live: LiveDelivery, delta: Delta, options: DataModelOptions): Validated {
  return validateDelta(live.loaded.version, delta, {
    initial: live.launchData,
    base: live.model,
    options: { ...options, maxTotalChars: modelBudget(live, options) },
  })
}

/** The answer to an applied commit. */
export function appliedAnswer(delta: Delta, result: Validated, session: Loaded['session']) {
  return {
    applied: true,
    last_seq: delta.seq,
    errors: result.errors,
    ignored: result.ignored,
    session: toSessionSummary(session),
  }
}

/** What a commit's writes leave: the session, and the delivery (null once it ended). */
interface Written {
  session: Loaded['session']
  next: LiveDelivery | null
  changes?: DeliveryChanges
}

/** The commit's compare-and-set position on the SCO row, and the launch's data after it. */
export function commitOf(live: LiveDelivery, result: Validated, seq: number) {
  const commit = { expected: { deliveryId: live.deliveryId, seq: live.lastSeq }, seq }
  const launch = { deliveryId: live.deliveryId, values: result.state.values, record: live.record }
  return { commit, launch }
}

/** A final commit: the delivery ends with it (Terminate, or the page's last beacon). */
async function writeFinal(
  trx: Executor,
  live: LiveDelivery,
  result: Validated,
  seq: number,
  at: string,
): Promise<Written | null> {
  const { loaded, states, itemId } = live
  const { commit, launch } = commitOf(live, result, seq)
  const accepted = { ...launch, accepted: result.accepted }
  const finished = await finishDelivery(trx, loaded, states, itemId, at, accepted, commit)
  if (!finished) return null
  await repo.endDelivery(trx, scopeOfSession(loaded.session), live.deliveryId, seq, at)
  return { session: finished, next: null }
}

/** A commit that continues the delivery: the SCO row, its changed elements, the progress. */
async function writeStep(
  trx: Executor,
  live: LiveDelivery,
  result: Validated,
  seq: number,
  at: string,
): Promise<Written | null> {
  const { loaded } = live
  const { commit, launch } = commitOf(live, result, seq)
  const changed = changedElements(live.record, result.accepted)
  const change = { ...launch, changed }
  const states = await saveScoState(trx, loaded, live.states, live.itemId, change, at, { commit })
  if (!states) return null
  const session = await updateSessionProgress(
    trx,
    loaded.session,
    stepProgress(live, changed, launch.values, states, at),
  )
  return {
    session,
    next: stepped(live, { ...loaded, session }, states, seq, changed),
    changes: { writes: result.writes, record: changed },
  }
}

/**
 * The delivery as a commit that continues it leaves it, before the commit's changes are folded
 * into its values and record (`LiveDeliveries.remember`).
 */
export function stepped(
  live: LiveDelivery,
  loaded: Loaded,
  states: ScoStatesTable[],
  seq: number,
  changed: Readonly<Record<string, string>>,
): LiveDelivery {
  // Every field named, in the order of `LiveDelivery` (as `#applyFresh` builds one): entries
  // of one shape keep the property reads of each commit monomorphic.
  return {
    deliveryId: live.deliveryId,
    itemId: live.itemId,
    lastSeq: seq,
    launchData: live.launchData,
    loaded,
    states,
    model: live.model,
    record: live.record,
    recordChars: live.recordChars + sizeChange(live.record, changed),
  }
}

/** The progress update of a commit that continues the delivery (`writeStep`). */
export function stepProgress(
  live: LiveDelivery,
  changed: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>>,
  scos: ScoStatesTable[],
  at: string,
): ProgressInput & { scos: ScoStatesTable[] } {
  const { loaded } = live
  return {
    version: loaded.version,
    itemCount: loaded.trackedCount,
    at,
    scos,
    sequencing: loaded.sequencing && {
      seq: loaded.sequencing,
      itemId: live.itemId,
      results: reportedResults(changed, values, false),
    },
  }
}

/** What a commit writes besides the SCO: SCORM 2004 shared data, the package's warnings. */
async function recordBesides(
  trx: Executor,
  loaded: Loaded,
  input: CommitInput,
  result: Validated,
  at: string,
): Promise<void> {
  if (loaded.version === '2004') {
    const scope = sharedDataScope(loaded.manifest, loaded.session)
    await writeSharedData(trx, loaded.session, scope, result.accepted, result.state.values, at)
  }
  const warnings = warningsOf(loaded, input, result)
  if (warnings.length > 0) {
    const scope = scopeOfSession(loaded.session)
    await recordRuntimeWarnings(trx, scope, loaded.session.package_id, warnings, at)
  }
}

function warningsOf(loaded: Loaded, input: CommitInput, result: Validated) {
  return runtimeWarnings(loaded.version, input.refused, result.errors, input.delta.values)
}

/** Whether `recordBesides` writes anything for this commit. */
export function writesBesides(loaded: Loaded, input: CommitInput, result: Validated): boolean {
  const shared =
    loaded.version === '2004' && sharedDataWrites(result.accepted, result.state.values).length > 0
  return shared || warningsOf(loaded, input, result).length > 0
}

/**
 * How large the delivery's data model may grow: by what the attempt has left of its limit. The
 * player's model gets the same budget at launch (`deliveryOptions`), so both refuse alike.
 */
function modelBudget(live: LiveDelivery, options: DataModelOptions): number {
  const limit = options.maxTotalChars ?? DEFAULT_MAX_TOTAL_CHARS
  return live.model.size + Math.max(0, limit - attemptChars(live.states))
}
