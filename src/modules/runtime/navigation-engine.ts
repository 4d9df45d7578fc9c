/**
 * The sequencing engine on an attempt as a navigation request finds it: the open delivery
 * ended, the tracking state, the left SCO's results and the global objectives read in the
 * request's transaction; then the Overall Sequencing Process on them. Nothing here writes the
 * decision (navigation-writes.ts does).
 */
import type { Executor } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import {
  createTrackingState,
  type GlobalObjectiveMap,
  type NavigationOutcome,
  type NavigationRequest,
  processNavigationRequest,
  type TrackingState,
  uiState,
} from '../scorm/sequencing/index.ts'
import { findSessionForRuntime } from '../sessions/session.cross-tenant.repository.ts'
import { readGlobals, type Sequencing, storedState } from './attempt-sequencing.ts'
import { endOpenDeliveries } from './delivery-launch.ts'
import type { EngineAfter } from './navigation-answer.ts'
import {
  afterTerminate,
  checkNotStale,
  type LeftDelivery,
  leftDelivery,
  type NavigationInput,
} from './navigation-input.ts'
import type { Loaded } from './runtime.types.ts'

/** What a navigation request runs on: read in its transaction, after open deliveries ended. */
export interface Prepared {
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
export async function prepare(
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
export function runEngine(p: Prepared, request: NavigationRequest): NavigationOutcome {
  return processNavigationRequest(p.seq.tree, p.state, afterTerminate(p.left, request), {
    globals: p.globals,
    ...(p.left && { results: p.left.results }),
  })
}

/** A request the rules forbid: it must change nothing. */
export function refused(out: NavigationOutcome): boolean {
  return !out.valid || (out.exception !== undefined && !out.deliver && !out.sessionEnded)
}

/** Whether the player shows a table of contents the learner can start from. */
export function offersChoice(p: Prepared): boolean {
  return uiState(p.seq.tree, p.state, { globals: p.globals }).tocEnabled
}

/** The prepared state unchanged, for an answer that delivers nothing and writes nothing. */
export function engineOf(p: Prepared): EngineAfter {
  return { seq: p.seq, state: p.state, globals: p.globals }
}

/**
 * Start delivers nothing when the root does not flow (SCORM 2004's default, so every course
 * without sequencing rules). With a table of contents the learner picks (the player shows it
 * with nothing delivered); without one (a one-SCO course) there is nothing to pick from, and
 * ADL's LMS (and its CTS cases CM-11, SX-08a/b) launch the first activity, in tree order, that a
 * choice delivers.
 */
export function firstChoice(p: Prepared): NavigationOutcome | null {
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
