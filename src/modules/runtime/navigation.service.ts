import type { Kysely } from 'kysely'
import type { Database, Executor } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import type { NavigationRequest } from '../scorm/sequencing/index.ts'
import { inReview, launchItem } from './delivery-launch.ts'
import {
  type Decided,
  type NavigationAnswer,
  type SequencedDelivery,
  uiOf,
  withUi,
} from './navigation-answer.ts'
import {
  engineOf,
  firstChoice,
  offersChoice,
  prepare,
  refused,
  runEngine,
} from './navigation-engine.ts'
import { engineRequest, type NavigationInput, navigationRefused } from './navigation-input.ts'
import { runUntilStateHolds } from './navigation-retry.ts'
import { applyOutcome, relaunchCurrent } from './navigation-writes.ts'
import type { RuntimeLoader } from './runtime-loader.ts'
import { simpleNavigation } from './simple-navigation.ts'

export type { NavigationAnswer, NavigationEnd, SequencedDelivery } from './navigation-answer.ts'

/**
 * The server decides SCORM 2004 navigation (DESIGN §12, "Sequencing is server-authoritative";
 * docs/sequencing.md): each request runs the engine on the attempt's stored tracking state with
 * the left SCO's stored results (navigation-engine.ts), and writes the new state under a
 * compare-and-set (navigation-writes.ts, retried by navigation-retry.ts), in one transaction
 * with the global objectives, the session's status and the delivery it launches.
 * Content without a sequencer (SCORM 1.2) gets the simple flow over its items.
 */
export class NavigationService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  readonly #loader: RuntimeLoader

  constructor(deps: { db: Kysely<Database>; clock: Clock; loader: RuntimeLoader }) {
    this.#db = deps.db
    this.#clock = deps.clock
    this.#loader = deps.loader
  }

  /** One navigation request; refused ones throw `navigation_refused` and change nothing. */
  async navigate(sessionId: string, input: NavigationInput): Promise<NavigationAnswer> {
    const decided = await runUntilStateHolds(this.#db, this.#clock, (trx, at) =>
      this.#navigateOnce(trx, sessionId, input, at),
    )
    const ui = decided.engine ? uiOf(decided.engine) : null
    const delivery = decided.delivery && withUi(decided.delivery, ui)
    return { delivery, ended: decided.ended, ui }
  }

  /**
   * `POST …/deliveries`: any launchable item of content without a sequencer (and of an attempt
   * in review). With one, only what the sequencer itself delivers: the Current Activity again (a
   * reload), or the item a launch, Continue, Previous or choice request delivers now; anything
   * else is `navigation_refused`. Players navigate with `navigate`; this keeps direct launches
   * (and older players) inside the rules.
   */
  async deliver(sessionId: string, itemId: string): Promise<SequencedDelivery> {
    const decided = await runUntilStateHolds(this.#db, this.#clock, (trx, at) =>
      this.#deliverOnce(trx, sessionId, itemId, at),
    )
    if (!decided.delivery) throw new AppError('internal_error', 'Nothing was delivered')
    return withUi(decided.delivery, decided.engine ? uiOf(decided.engine) : null)
  }

  async #navigateOnce(
    trx: Executor,
    sessionId: string,
    input: NavigationInput,
    at: string,
  ): Promise<Decided> {
    const first = await this.#loader.load(trx, sessionId)
    if (!first.sequencing || inReview(first)) return simpleNavigation(trx, first, input, at)
    const p = await prepare(trx, first, first.sequencing, at, input)
    const request = engineRequest(p.state, input)
    if (request === 'relaunch') return relaunchCurrent(trx, p, at)
    let out = runEngine(p, request)
    if (request.type === 'start' && !out.deliver && !out.sessionEnded) {
      // The root does not flow: the learner picks from the table of contents when there is one.
      if (offersChoice(p)) return { delivery: null, ended: null, engine: engineOf(p) }
      out = firstChoice(p) ?? out
    }
    // A request the rules forbid changes nothing, even when the engine got as far as ending the
    // attempt being left before finding nothing to deliver: the transaction rolls back.
    if (refused(out)) {
      throw navigationRefused(out.exception ?? 'NB.2.1', `The sequencer refused ${input.request}`)
    }
    return applyOutcome(trx, p, out, at)
  }

  /**
   * The sequencer delivers `itemId` only if it would itself: a reload of the Current Activity,
   * or the request a player would make to get there — the launch (Start / Resume All) when
   * nothing is current, else Continue or Previous — or a choice of it.
   */
  async #deliverOnce(
    trx: Executor,
    sessionId: string,
    itemId: string,
    at: string,
  ): Promise<Decided> {
    const first = await this.#loader.load(trx, sessionId)
    if (!first.sequencing || inReview(first)) {
      return { delivery: await launchItem(trx, first, itemId, at), ended: null, engine: null }
    }
    const p = await prepare(trx, first, first.sequencing, at)
    if (p.state.current === itemId) return relaunchCurrent(trx, p, at)
    const launch = engineRequest(p.state, { request: 'start' })
    const tries: NavigationRequest[] =
      p.state.current === null
        ? [launch === 'relaunch' ? { type: 'start' } : launch]
        : [{ type: 'continue' }, { type: 'previous' }]
    tries.push({ type: 'choice', target: itemId })
    let exception = 'NB.2.1-11'
    for (const request of tries) {
      const out = runEngine(p, request)
      if (!refused(out) && out.deliver === itemId) return applyOutcome(trx, p, out, at)
      exception = out.exception ?? exception
    }
    throw navigationRefused(exception, `The sequencer does not deliver ${itemId} now`)
  }
}
