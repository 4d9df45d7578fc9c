import type { Kysely } from 'kysely'
import type { Database, Executor } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import {
  createTrackingState,
  type GlobalObjectiveMap,
  type NavigationOutcome,
  type NavigationRequest,
  processNavigationRequest,
  type RequestValidity,
  rollupSession,
  type ScoResults,
  type TrackingState,
  type UiState,
  uiState,
} from '../scorm/sequencing/index.ts'
import { findSessionForRuntime } from '../sessions/session.cross-tenant.repository.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import * as sessions from '../sessions/session.repository.ts'
import { updateSessionProgress } from '../sessions/session-progress.ts'
import { isFinished } from '../sessions/session-status.ts'
import {
  readGlobals,
  type Sequencing,
  sequencerEndsAttempt,
  storedState,
  writeGlobals,
} from './attempt-sequencing.ts'
import {
  type DeliveryAnswer,
  endOpenDeliveries,
  inReview,
  launchItem,
  suspendLeftDelivery,
} from './delivery-launch.ts'
import {
  afterTerminate,
  checkNotStale,
  engineRequest,
  type LeftDelivery,
  leftDelivery,
  type NavigationInput,
  navigationRefused,
} from './navigation-input.ts'
import type { Loaded } from './runtime.types.ts'
import type { RuntimeLoader } from './runtime-loader.ts'
import { compareAndSetState } from './sequencing-state.repository.ts'
import { simpleNavigation } from './simple-navigation.ts'

/** A delivery answer; SCORM 2004 with sequencing adds what the player shows and answers. */
export interface SequencedDelivery extends DeliveryAnswer {
  /** uiState after this delivery: controls and table of contents. */
  ui?: UiState
  /** adl.nav.request_valid.* for this delivery (the answers behind `ui`). */
  request_valid?: RequestValidity
}

export interface NavigationEnd {
  reason: 'completed' | 'suspended' | 'exited'
  /** The learner's attempt is over: its launch URL reopens it in review, a launch starts anew. */
  attempt_ended: boolean
}

/** `POST …/navigation`'s answer (docs/runtime-protocol.md §6). */
export interface NavigationAnswer {
  delivery: SequencedDelivery | null
  ended: NavigationEnd | null
  /** uiState now; null for content without a sequencer (SCORM 1.2 simple flow). */
  ui: UiState | null
}

/** What one run in a transaction decided; the UI is computed after COMMIT, off the locks. */
interface Decided {
  delivery: DeliveryAnswer | null
  ended: NavigationEnd | null
  engine: { seq: Sequencing; state: TrackingState; globals: GlobalObjectiveMap } | null
}

/**
 * Runs after losing the compare-and-set to another writer (or a PostgreSQL deadlock /
 * serialization failure), at most (then 409 conflict).
 */
const MAX_RUNS = 5

/** Another writer moved the tracking state after this run read it: run again on its state. */
class StateMoved extends Error {}

/**
 * PostgreSQL aborted the transaction for a concurrent one (serialization_failure 40001,
 * deadlock_detected 40P01): nothing was written, so the request runs again like a lost
 * compare-and-set.
 */
function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === '40001' || code === '40P01'
}

/**
 * The server decides SCORM 2004 navigation (DESIGN §12, "Sequencing is server-authoritative";
 * docs/sequencing.md): each request runs the engine on the attempt's stored tracking state with
 * the left SCO's stored results, and writes the new state under a compare-and-set, in one
 * transaction with the global objectives, the session's status and the delivery it launches.
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
    const decided = await this.#run((trx, at) => this.#navigateOnce(trx, sessionId, input, at))
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
    const decided = await this.#run((trx, at) => this.#deliverOnce(trx, sessionId, itemId, at))
    if (!decided.delivery) throw new AppError('internal_error', 'Nothing was delivered')
    return withUi(decided.delivery, decided.engine ? uiOf(decided.engine) : null)
  }

  async #run(once: (trx: Executor, at: string) => Promise<Decided>): Promise<Decided> {
    for (let run = 1; ; run++) {
      try {
        const at = this.#clock.now().toISOString()
        return await this.#db.transaction().execute((trx) => once(trx, at))
      } catch (err) {
        if (!(err instanceof StateMoved) && !isTransient(err)) throw err
        if (run >= MAX_RUNS) {
          throw new AppError('conflict', 'The attempt kept changing at the same time; retry')
        }
      }
    }
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
    if (request === 'relaunch') return relaunch(trx, p, at)
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
    return apply(trx, p, out, at)
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
    if (p.state.current === itemId) return relaunch(trx, p, at)
    const launch = engineRequest(p.state, { request: 'start' })
    const tries: NavigationRequest[] =
      p.state.current === null
        ? [launch === 'relaunch' ? { type: 'start' } : launch]
        : [{ type: 'continue' }, { type: 'previous' }]
    tries.push({ type: 'choice', target: itemId })
    let exception = 'NB.2.1-11'
    for (const request of tries) {
      const out = runEngine(p, request)
      if (!refused(out) && out.deliver === itemId) return apply(trx, p, out, at)
      exception = out.exception ?? exception
    }
    throw navigationRefused(exception, `The sequencer does not deliver ${itemId} now`)
  }
}

/** What a navigation request runs on: read in its transaction, after open deliveries ended. */
interface Prepared {
  loaded: Loaded
  seq: Sequencing
  state: TrackingState
  left: LeftDelivery | null
  globals: GlobalObjectiveMap
}

/**
 * Ends the open delivery with what it committed, then reads the attempt as that left it: the
 * tracking state and its version, the left SCO's stored results, the global objectives. A
 * request naming a delivery already left is refused before and after (another transaction may
 * have left it in between).
 */
async function prepare(
  trx: Executor,
  first: Loaded,
  seq: Sequencing,
  at: string,
  input?: NavigationInput,
): Promise<Prepared> {
  if (input) checkNotStale(first.session, input)
  await endOpenDeliveries(trx, first, at)
  const session = await findSessionForRuntime(trx, first.session.id)
  if (!session) throw new AppError('session_not_found', `No session ${first.session.id}`)
  if (input) checkNotStale(session, input)
  const loaded = { ...first, session }
  const state = storedState(session) ?? createTrackingState()
  const left = await leftDelivery(trx, loaded, state)
  return { loaded, seq, state, left, globals: await readGlobals(trx, session, seq) }
}

/** The Overall Sequencing Process on the prepared state, with the left SCO's results. */
function runEngine(p: Prepared, request: NavigationRequest): NavigationOutcome {
  return processNavigationRequest(p.seq.tree, p.state, afterTerminate(p.left, request), {
    globals: p.globals,
    ...(p.left && { results: p.left.results }),
  })
}

/** Whether the player shows a table of contents the learner can start from. */
function offersChoice(p: Prepared): boolean {
  return uiState(p.seq.tree, p.state, { globals: p.globals }).tocEnabled
}

function engineOf(p: Prepared): NonNullable<Decided['engine']> {
  return { seq: p.seq, state: p.state, globals: p.globals }
}

/**
 * Start delivers nothing when the root does not flow (SCORM 2004's default, so every course
 * without sequencing rules). With a table of contents the learner picks (the player shows it
 * with nothing delivered); without one (a one-SCO course) there is nothing to pick from, and
 * ADL's LMS (and its CTS cases CM-11, SX-08a/b) launch the first activity, in tree order, that a
 * choice delivers.
 */
function firstChoice(p: Prepared): NavigationOutcome | null {
  const { tree } = p.seq
  const order: string[] = []
  const walk = (id: string) => {
    order.push(id)
    for (const child of tree.activities[id]?.children ?? []) walk(child)
  }
  walk(tree.root)
  for (const id of order.slice(1)) {
    const out = runEngine(p, { type: 'choice', target: id })
    if (!refused(out) && out.deliver) return out
  }
  return null
}

function refused(out: NavigationOutcome): boolean {
  return !out.valid || (out.exception !== undefined && !out.deliver && !out.sessionEnded)
}

/**
 * Writes what the engine decided: the state under the compare-and-set (StateMoved when another
 * writer came first), the global objectives, the session's status from the rollup (an ended
 * attempt is closed), and the delivery of what it identified.
 */
async function apply(
  trx: Executor,
  p: Prepared,
  out: NavigationOutcome,
  at: string,
): Promise<Decided> {
  const { loaded, seq } = p
  const sessionId = loaded.session.id
  const deliveryId = out.deliver ? newId('scd') : null
  const json = JSON.stringify(out.state)
  const version = Number(loaded.session.sequencing_version ?? 0)
  const scope = scopeOfSession(loaded.session)
  const written = { json, deliveryId }
  if (!(await compareAndSetState(trx, scope, sessionId, version, written))) throw new StateMoved()
  await writeGlobals(trx, loaded.session, seq, p.globals, out.globals, at)
  const suspending = out.sessionEnded && !out.attemptEnded
  if (suspending && p.left) await suspendLeftDelivery(trx, loaded, p.left.itemId, at)
  const session = await updateSessionProgress(
    trx,
    {
      ...loaded.session,
      sequencing_state: json,
      sequencing_version: version + 1,
      sequencing_delivery_id: deliveryId,
    },
    {
      version: '2004',
      itemCount: loaded.trackedCount,
      at,
      sequencing: { seq, itemId: null, results: {} },
      ...(out.sessionEnded && { ended: { suspended: suspending, sessionTime: null, seconds: 0 } }),
    },
  )
  if (out.attemptEnded) await sessions.updateSession(trx, scope, sessionId, { open: 0 })
  const engine = { seq, state: out.state, globals: out.globals }
  if (!out.deliver || !deliveryId) {
    const reason: NavigationEnd['reason'] = suspending
      ? 'suspended'
      : isFinished(session)
        ? 'completed'
        : 'exited'
    const ended = out.sessionEnded ? { reason, attempt_ended: out.attemptEnded } : null
    return { delivery: null, ended, engine }
  }
  const delivery = await launchItem(trx, { ...loaded, session }, out.deliver, at, deliveryId)
  return { delivery, ended: null, engine }
}

/**
 * A new delivery of the Current Activity (a reload, a tab closed without leaving): the attempt
 * on it goes on, so what the delivery being replaced reported is recorded now (it was only
 * provisional, docs/sequencing.md) — the tracking state and global objectives with it, under
 * the compare-and-set that also names the new delivery, so a stale tab's request is recognised.
 */
async function relaunch(trx: Executor, p: Prepared, at: string): Promise<Decided> {
  const { loaded, seq } = p
  const current = p.state.current
  if (current === null) throw navigationRefused('NB.2.1-2', 'No activity is being attempted')
  // A one-SCO course records results at each commit (its attempt ends by the status rule).
  const reported = sequencerEndsAttempt(seq) && p.left ? withoutExit(p.left.results) : null
  const rolled =
    reported && Object.keys(reported).length > 0
      ? rollupSession(
          seq.tree,
          p.state,
          { [p.left?.itemId ?? current]: reported },
          {
            globals: p.globals,
          },
        )
      : null
  const state = rolled?.state ?? p.state
  const globals = rolled?.globals ?? p.globals
  const deliveryId = newId('scd')
  const version = Number(loaded.session.sequencing_version ?? 0)
  const json = rolled
    ? JSON.stringify(state)
    : (loaded.session.sequencing_state ?? JSON.stringify(state))
  const scope = scopeOfSession(loaded.session)
  const written = { json, deliveryId }
  if (!(await compareAndSetState(trx, scope, loaded.session.id, version, written))) {
    throw new StateMoved()
  }
  if (rolled) await writeGlobals(trx, loaded.session, seq, p.globals, globals, at)
  const session = {
    ...loaded.session,
    sequencing_state: json,
    sequencing_version: version + 1,
    sequencing_delivery_id: deliveryId,
  }
  const delivery = await launchItem(trx, { ...loaded, session }, current, at, deliveryId)
  return { delivery, ended: null, engine: { seq, state, globals } }
}

function withoutExit(results: ScoResults): ScoResults {
  const { exit: _exit, ...reported } = results
  return reported
}

function uiOf(engine: NonNullable<Decided['engine']>): UiState {
  return uiState(engine.seq.tree, engine.state, { globals: engine.globals })
}

function withUi(delivery: DeliveryAnswer, ui: UiState | null): SequencedDelivery {
  return ui ? { ...delivery, ui, request_valid: ui.validity } : delivery
}
