import type { TransactionRunner } from '../../infra/db/group-commit.ts'
import type { Executor } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import { recordRuntimeWarnings } from '../packages/package.repository.ts'
import {
  type DataModelOptions,
  DEFAULT_MAX_TOTAL_CHARS,
  type Delta,
  deltaPosition,
  type LaunchData,
  validateDelta,
} from '../scorm/data-model/index.ts'
import {
  attemptChars,
  changedElements,
  finishDelivery,
  lastAppliedSeq,
  launchValues,
  recordOf,
  saveScoState,
  valuesChars,
} from './delivery-record.ts'
import { LiveDeliveries, type LiveDelivery } from './live-deliveries.ts'
import type { Loaded } from './runtime.service.ts'
import { type RefusedValue, runtimeWarnings } from './runtime-warnings.ts'
import { toSessionSummary } from './session.mapper.ts'
import * as repo from './session.repository.ts'
import { updateSessionProgress } from './session-progress.ts'
import { reportedResults } from './session-sequencing.ts'
import { sharedDataScope, writeSharedData } from './shared-data.ts'

export interface RuntimeCommitsDeps {
  /** Runs each commit's writes as one transaction (group commit on SQLite). */
  runner: TransactionRunner
  clock: Clock
  /** The session with its package version and data-model options, read in `db`. */
  load(db: Executor, sessionId: string): Promise<Loaded>
  /** The session's data-model options: its tenant's and its package's (cached by the caller). */
  options(db: Executor, session: Loaded['session']): Promise<DataModelOptions>
}

/** What a commit carries besides its delta (docs/runtime-protocol.md). */
export interface CommitInput {
  deliveryId: string
  delta: Delta
  /** SetValue calls the player's data model refused, reported for the package's warnings. */
  refused: readonly RefusedValue[]
}

/**
 * How far past the last applied commit a delta may reach. A delta covering several of the
 * player's commits (sendBeacon's remainder, a gap repair) jumps ahead legitimately; a claim of
 * more than this many would leave the launch unable to accept the player's own next commits.
 */
export const MAX_SEQ_STEP = 1000

type Answer = Record<string, unknown>

interface Outcome {
  answer: Answer
  /** The delivery after the commit; null once it ended; absent when the commit changed nothing. */
  next?: LiveDelivery | null
}

/**
 * Applying commits (docs/runtime-protocol.md): idempotent by sequence number, re-validated by
 * the data model, written in one transaction with the session's progress and events. A commit
 * that continues an open delivery's chain starts from what the previous commit left
 * (LiveDeliveries) and proves it current with the compare-and-set in its SCO row's UPDATE (the
 * row names the open delivery and its last applied commit); anything else — a duplicate, a gap,
 * another process's commit in between, a review launch — rereads the rows.
 */
export class RuntimeCommits {
  readonly #deps: RuntimeCommitsDeps
  readonly #live = new LiveDeliveries()

  constructor(deps: RuntimeCommitsDeps) {
    this.#deps = deps
  }

  async commit(sessionId: string, input: CommitInput): Promise<Answer> {
    const { deliveryId, delta } = input
    let outcome: Outcome
    try {
      outcome = await this.#deps.runner.run(async (trx) => {
        const at = this.#deps.clock.now().toISOString()
        const live = this.#live.get(deliveryId)
        const continues =
          live?.loaded.session.id === sessionId && position(live.lastSeq, delta) === 'apply'
        if (live && continues) {
          const options = await this.#deps.options(trx, live.loaded.session)
          const current = { ...live, loaded: { ...live.loaded, options } }
          const applied = await apply(trx, current, input, at)
          if (applied) return applied
        }
        return this.#applyFresh(trx, sessionId, input, at)
      })
    } catch (error) {
      this.#live.forget(deliveryId)
      throw error
    }
    // Only now, after COMMIT: what is remembered is never ahead of the database.
    if (outcome.next) this.#live.remember(outcome.next)
    else if (outcome.next === null) this.#live.forget(deliveryId)
    return outcome.answer
  }

  async #applyFresh(
    trx: Executor,
    sessionId: string,
    input: CommitInput,
    at: string,
  ): Promise<Outcome> {
    const { deliveryId, delta } = input
    const delivery = await repo.findDelivery(trx, sessionId, deliveryId)
    if (!delivery) throw new AppError('not_found', `No delivery ${deliveryId} in this session`)
    const launchData = JSON.parse(delivery.launch_data) as LaunchData
    if (launchData.mode === 'review') return reviewCommit(trx, delivery.id, delta, at)
    const states = await repo.findScoStates(trx, sessionId)
    const row = states.find((s) => s.item_id === delivery.item_id)
    const lastSeq = lastAppliedSeq(delivery, row)
    switch (position(lastSeq, delta)) {
      case 'duplicate':
        return { answer: { applied: false, last_seq: lastSeq, errors: [], ignored: [] } }
      case 'gap':
        throw new AppError(
          'sequence_gap',
          `Commits after ${lastSeq} are missing; resend from there`,
          { last_seq: lastSeq },
        )
      case 'jump':
        throw new AppError(
          'sequence_jump',
          `A commit may reach at most ${MAX_SEQ_STEP} past the last applied one (${lastSeq})`,
          { last_seq: lastSeq, max_step: MAX_SEQ_STEP },
        )
      case 'apply':
        break
    }
    if (delivery.ended_at || row?.delivery_id !== delivery.id) {
      throw new AppError('invalid_state', 'This launch has already ended')
    }
    const loaded = await this.#deps.load(trx, sessionId)
    const rows = await repo.findScoValues(trx, sessionId, delivery.item_id)
    const live: LiveDelivery = {
      deliveryId,
      itemId: delivery.item_id,
      lastSeq,
      launchData,
      loaded,
      states,
      values: launchValues(loaded.version, launchData, rows, deliveryId),
      record: recordOf(rows),
    }
    const applied = await apply(trx, live, input, at)
    if (!applied) {
      throw new AppError(
        'conflict',
        'Another commit of this launch was applied at the same time; retry',
      )
    }
    return applied
  }
}

/** Where a delta fits: the data model's answer, plus 'jump' for a claim too far ahead. */
function position(lastSeq: number, delta: Delta): 'apply' | 'duplicate' | 'gap' | 'jump' {
  const where = deltaPosition(lastSeq, delta)
  return where === 'apply' && delta.seq - lastSeq > MAX_SEQ_STEP ? 'jump' : where
}

/**
 * A review launch (a finished attempt reopened) reads the attempt's data and writes nothing:
 * its commits are acknowledged so the player's outbox drains, and its final one ends it.
 */
async function reviewCommit(
  trx: Executor,
  deliveryId: string,
  delta: Delta,
  at: string,
): Promise<Outcome> {
  if (delta.final) await repo.endDelivery(trx, deliveryId, delta.seq, at)
  return {
    answer: { applied: false, review: true, last_seq: delta.seq, errors: [], ignored: [] },
  }
}

/**
 * Validates the delta against the delivery's values and writes what changed, if the delivery is
 * still open at `live.lastSeq` (the SCO row's compare-and-set comes first, so nothing is written
 * when it fails); null when it is not (the caller rereads). The answer, and the delivery as it
 * now is — null once the delta ended it.
 */
async function apply(
  trx: Executor,
  live: LiveDelivery,
  input: CommitInput,
  at: string,
): Promise<Outcome | null> {
  const { loaded } = live
  const { delta } = input
  const result = validateDelta(loaded.version, delta, {
    initial: live.launchData,
    state: { version: loaded.version, values: live.values },
    options: { ...loaded.options, maxTotalChars: modelBudget(live) },
  })
  const values = result.state.values
  const commit = { expected: { deliveryId: live.deliveryId, seq: live.lastSeq }, seq: delta.seq }
  const launch = { deliveryId: live.deliveryId, values, record: live.record }
  let next: LiveDelivery | null = null
  let session: Loaded['session']
  if (delta.final) {
    const { states, itemId } = live
    const finished = await finishDelivery(
      trx,
      loaded,
      states,
      itemId,
      at,
      { ...launch, accepted: result.accepted },
      commit,
    )
    if (!finished) return null
    await repo.endDelivery(trx, live.deliveryId, delta.seq, at)
    session = finished
  } else {
    const changed = changedElements(live.record, result.accepted)
    const saved = await saveScoState(
      trx,
      loaded,
      live.states,
      live.itemId,
      { ...launch, changed },
      at,
      { commit },
    )
    if (!saved) return null
    session = await updateSessionProgress(trx, loaded.session, {
      version: loaded.version,
      itemCount: loaded.trackedCount,
      at,
      scos: saved.states,
      sequencing: loaded.sequencing && {
        seq: loaded.sequencing,
        itemId: live.itemId,
        results: reportedResults(changed, values, false),
      },
    })
    next = {
      ...live,
      lastSeq: delta.seq,
      loaded: { ...loaded, session },
      states: saved.states,
      values,
      record: saved.record,
    }
  }
  if (loaded.version === '2004') {
    const scope = sharedDataScope(loaded.manifest, loaded.session)
    await writeSharedData(trx, loaded.session, scope, result.accepted, values, at)
  }
  const warnings = runtimeWarnings(loaded.version, input.refused, result.errors, delta.values)
  if (warnings.length > 0) {
    const { session: s } = loaded
    const scope = { tenantId: s.tenant_id, mode: s.mode }
    await recordRuntimeWarnings(trx, scope, s.package_id, warnings, at)
  }
  return {
    answer: {
      applied: true,
      last_seq: delta.seq,
      errors: result.errors,
      ignored: result.ignored,
      session: toSessionSummary(session),
    },
    next,
  }
}

/**
 * How large the delivery's data model may grow: by what the attempt has left of its limit. The
 * player's model gets the same budget at launch (`deliveryOptions`), so both refuse alike.
 */
function modelBudget(live: LiveDelivery): number {
  const limit = live.loaded.options.maxTotalChars ?? DEFAULT_MAX_TOTAL_CHARS
  return valuesChars(live.values) + Math.max(0, limit - attemptChars(live.states))
}
