import type { TransactionRunner } from '../../infra/db/group-commit.ts'
import type { Executor } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import {
  type DataModelOptions,
  type Delta,
  deltaPosition,
  type LaunchData,
  validateDelta,
} from '../scorm/data-model/index.ts'
import { finishDelivery, lastAppliedSeq, saveScoState } from './delivery-record.ts'
import { LiveDeliveries, type LiveDelivery } from './live-deliveries.ts'
import type { Loaded } from './runtime.service.ts'
import { toSessionSummary } from './session.mapper.ts'
import * as repo from './session.repository.ts'
import { updateSessionProgress } from './session-progress.ts'
import { sharedDataScope, writeSharedData } from './shared-data.ts'

export interface RuntimeCommitsDeps {
  /** Runs each commit's writes as one transaction (group commit on SQLite). */
  runner: TransactionRunner
  clock: Clock
  /** The session with its package version and data-model options, read in `db`. */
  load(db: Executor, sessionId: string): Promise<Loaded>
  /** The tenant's data-model options (cached by the caller). */
  options(db: Executor, tenantId: string): Promise<DataModelOptions>
}

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
 * another process's commit in between — rereads the rows.
 */
export class RuntimeCommits {
  readonly #deps: RuntimeCommitsDeps
  readonly #live = new LiveDeliveries()

  constructor(deps: RuntimeCommitsDeps) {
    this.#deps = deps
  }

  async commit(sessionId: string, deliveryId: string, delta: Delta): Promise<Answer> {
    let outcome: Outcome
    try {
      outcome = await this.#deps.runner.run(async (trx) => {
        const at = this.#deps.clock.now().toISOString()
        const live = this.#live.get(deliveryId)
        const continues =
          live?.loaded.session.id === sessionId && deltaPosition(live.lastSeq, delta) === 'apply'
        if (live && continues) {
          const options = await this.#deps.options(trx, live.loaded.session.tenant_id)
          const current = { ...live, loaded: { ...live.loaded, options } }
          const applied = await apply(trx, current, delta, at)
          if (applied) return applied
        }
        return this.#applyFresh(trx, sessionId, deliveryId, delta, at)
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
    deliveryId: string,
    delta: Delta,
    at: string,
  ): Promise<Outcome> {
    const delivery = await repo.findDelivery(trx, sessionId, deliveryId)
    if (!delivery) throw new AppError('not_found', `No delivery ${deliveryId} in this session`)
    const states = await repo.findScoStates(trx, sessionId)
    const row = states.find((s) => s.item_id === delivery.item_id)
    const lastSeq = lastAppliedSeq(delivery, row)
    const position = deltaPosition(lastSeq, delta)
    if (position === 'duplicate') {
      return { answer: { applied: false, last_seq: lastSeq, errors: [], ignored: [] } }
    }
    if (position === 'gap') {
      throw new AppError(
        'sequence_gap',
        `Commits after ${lastSeq} are missing; resend from there`,
        {
          last_seq: lastSeq,
        },
      )
    }
    if (delivery.ended_at || row?.delivery_id !== delivery.id) {
      throw new AppError('invalid_state', 'This launch has already ended')
    }
    const loaded = await this.#deps.load(trx, sessionId)
    const live: LiveDelivery = {
      deliveryId,
      itemId: delivery.item_id,
      lastSeq,
      launchData: JSON.parse(delivery.launch_data) as LaunchData,
      loaded,
      states,
      values: JSON.parse(row?.state ?? '{}') as Record<string, string>,
    }
    const applied = await apply(trx, live, delta, at)
    if (!applied) {
      throw new AppError(
        'conflict',
        'Another commit of this launch was applied at the same time; retry',
      )
    }
    return applied
  }
}

/**
 * Validates `delta` against the delivery's values and writes it, if the delivery is still open
 * at `live.lastSeq` (the SCO row's compare-and-set comes first, so nothing is written when it
 * fails); null when it is not (the caller rereads). The answer, and the delivery as it now is —
 * null once the delta ended it.
 */
async function apply(
  trx: Executor,
  live: LiveDelivery,
  delta: Delta,
  at: string,
): Promise<Outcome | null> {
  const { loaded } = live
  const result = validateDelta(loaded.version, delta, {
    initial: live.launchData,
    state: { version: loaded.version, values: live.values },
    options: loaded.options,
  })
  const values = result.state.values
  const commit = { expected: { deliveryId: live.deliveryId, seq: live.lastSeq }, seq: delta.seq }
  let next: LiveDelivery | null = null
  let session: Loaded['session']
  if (delta.final) {
    const { states, itemId } = live
    const finished = await finishDelivery(trx, loaded, states, itemId, at, values, commit)
    if (!finished) return null
    await repo.endDelivery(trx, live.deliveryId, delta.seq, at)
    session = finished
  } else {
    const states = await saveScoState(trx, loaded, live.states, live.itemId, values, at, {
      commit,
    })
    if (!states) return null
    session = await updateSessionProgress(trx, loaded.session, {
      itemCount: loaded.trackedCount,
      at,
      scos: states,
    })
    next = { ...live, lastSeq: delta.seq, loaded: { ...loaded, session }, states, values }
  }
  if (loaded.version === '2004') {
    const scope = sharedDataScope(loaded.manifest, loaded.session)
    await writeSharedData(trx, loaded.session, scope, result.accepted, values, at)
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
