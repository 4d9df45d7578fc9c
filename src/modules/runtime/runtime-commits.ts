import type { TransactionRunner } from '../../infra/db/group-commit.ts'
import type { Executor } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import {
  type DataModelOptions,
  type Delta,
  deltaPosition,
  type LaunchData,
  modelBaseOf,
} from '../scorm/data-model/index.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import { type Answer, apply, type CommitInput, type Outcome } from './commit-apply.ts'
import { applyAtOnce } from './commit-at-once.ts'
import { CommitBatches } from './commit-batches.ts'
import { lastAppliedSeq, launchValues, recordOf, valuesChars } from './delivery-record.ts'
import { LiveDeliveries, type LiveDelivery } from './live-deliveries.ts'
import * as repo from './runtime.repository.ts'
import type { Loaded } from './runtime.types.ts'
import * as scoValues from './sco-values.repository.ts'

export interface RuntimeCommitsDeps {
  /** Runs each commit's writes as one transaction (group commit on SQLite). */
  runner: TransactionRunner
  /**
   * PostgreSQL: the database, where an open delivery's commit whose writes fit one statement is
   * written by one statement with the other such commits of the moment (commit-at-once.ts,
   * commit-batches.ts), without a transaction. Absent on SQLite, whose group commit already
   * shares one COMMIT among many commits.
   */
  oneStatement?: Executor
  clock: Clock
  /** The session with its package version and data-model options, read in `db`. */
  load(db: Executor, sessionId: string): Promise<Loaded>
  /** The session's data-model options: its tenant's and its package's (cached by the caller). */
  options(db: Executor, session: Loaded['session']): Promise<DataModelOptions>
}

/**
 * How far past the last applied commit a delta may reach. A delta covering several of the
 * player's commits (sendBeacon's remainder, a gap repair) jumps ahead legitimately; a claim of
 * more than this many would leave the launch unable to accept the player's own next commits.
 */
export const MAX_SEQ_STEP = 1000

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
  readonly #batches: CommitBatches | null

  constructor(deps: RuntimeCommitsDeps) {
    this.#deps = deps
    this.#batches = deps.oneStatement ? new CommitBatches(deps.oneStatement) : null
  }

  async commit(sessionId: string, input: CommitInput): Promise<Answer> {
    const { deliveryId, delta } = input
    let outcome: Outcome
    try {
      const atOnce = this.#batches ? await this.#atOnce(this.#batches, sessionId, input) : undefined
      outcome =
        atOnce ??
        (await this.#deps.runner.run(async (trx) => {
          const at = this.#deps.clock.now().toISOString()
          const live = this.#live.get(deliveryId)
          if (live && continues(live, sessionId, delta)) {
            const options = await this.#deps.options(trx, live.loaded.session)
            const applied = await apply(trx, live, input, at, options)
            if (applied) return applied
          }
          return this.#applyFresh(trx, sessionId, input, at)
        }))
    } catch (error) {
      this.#live.forget(deliveryId)
      throw error
    }
    // Only now, after COMMIT (or the one statement): what is remembered is never ahead of the
    // database.
    if (outcome.next) this.#live.remember(outcome.next, outcome.changes)
    else if (outcome.next === null) this.#live.forget(deliveryId)
    return outcome.answer
  }

  /**
   * PostgreSQL: the commit of a remembered open delivery in one statement, when it fits
   * (commit-at-once.ts). Undefined when it does not, or when its compare-and-set found the
   * delivery elsewhere — then the entry is forgotten, and the transaction rereads the rows and
   * answers as it always has (a duplicate, a conflict, an ended launch).
   */
  async #atOnce(
    batches: CommitBatches,
    sessionId: string,
    input: CommitInput,
  ): Promise<Outcome | undefined> {
    const db = this.#deps.oneStatement
    const live = this.#live.get(input.deliveryId)
    if (!db || !live || !continues(live, sessionId, input.delta)) return undefined
    const at = this.#deps.clock.now().toISOString()
    const options = await this.#deps.options(db, live.loaded.session)
    const outcome = await applyAtOnce(batches, live, input, at, options)
    if (outcome === null) this.#live.forget(input.deliveryId)
    return outcome ?? undefined
  }

  async #applyFresh(
    trx: Executor,
    sessionId: string,
    input: CommitInput,
    at: string,
  ): Promise<Outcome> {
    const { deliveryId, delta } = input
    // The session row (found by the id the token names) is what scopes every later read.
    const loaded = await this.#deps.load(trx, sessionId)
    const scope = scopeOfSession(loaded.session)
    const delivery = await repo.findDelivery(trx, scope, sessionId, deliveryId)
    if (!delivery) throw new AppError('not_found', `No delivery ${deliveryId} in this session`)
    const launchData = JSON.parse(delivery.launch_data) as LaunchData
    if (launchData.mode === 'review') return reviewCommit(trx, loaded, delivery.id, delta, at)
    const states = await repo.findScoStates(trx, scope, sessionId)
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
    const rows = await scoValues.findScoValues(trx, scope, sessionId, delivery.item_id)
    const values = launchValues(loaded.version, launchData, rows, deliveryId)
    const record = recordOf(rows)
    const live: LiveDelivery = {
      deliveryId,
      itemId: delivery.item_id,
      lastSeq,
      launchData,
      loaded,
      states,
      model: modelBaseOf(loaded.version, values),
      record,
      recordChars: valuesChars(record),
    }
    const applied = await apply(trx, live, input, at, loaded.options)
    if (!applied) {
      throw new AppError(
        'conflict',
        'Another commit of this launch was applied at the same time; retry',
      )
    }
    return applied
  }
}

/** Whether `delta` is the next commit of the remembered delivery `live` of this session. */
function continues(live: LiveDelivery, sessionId: string, delta: Delta): boolean {
  return live.loaded.session.id === sessionId && position(live.lastSeq, delta) === 'apply'
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
  loaded: Loaded,
  deliveryId: string,
  delta: Delta,
  at: string,
): Promise<Outcome> {
  const scope = scopeOfSession(loaded.session)
  if (delta.final) await repo.endDelivery(trx, scope, deliveryId, delta.seq, at)
  return {
    answer: { applied: false, review: true, last_seq: delta.seq, errors: [], ignored: [] },
  }
}
