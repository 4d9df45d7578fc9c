/**
 * The engine's entry points. Each copies the tracking state and the global objectives it is
 * given, runs the SN book's processes on the copy and returns the result: callers see pure
 * functions and can store the new state under a compare-and-set.
 */
import { contentDeliveryEnvironmentProcess, deliveryRequestProcess } from './navigation/delivery.ts'
import { endAttemptProcess } from './navigation/end-attempt.ts'
import {
  type NavigationRequest,
  navigationRequestProcess,
} from './navigation/navigation-request.ts'
import { selectAndRandomizeTree } from './navigation/selection.ts'
import { sequencingRequestProcess } from './navigation/sequencing-request.ts'
import {
  type SequencingRequestType,
  terminationRequestProcess,
} from './navigation/termination-request.ts'
import { overallRollupProcess, rollupGlobalObjectiveReaders } from './rollup/overall-rollup.ts'
import { applyScoResults, type ScoResults } from './sco-results.ts'
import {
  type ContextOptions,
  cloneGlobals,
  cloneState,
  openContext,
  type SequencingContext,
} from './state/sequencing-context.ts'
import type { GlobalObjectiveMap, TrackingState } from './state/tracking-state.types.ts'
import type { ActivityTree } from './tree/activity-tree.types.ts'

export interface NavigationOutcome {
  state: TrackingState
  globals: GlobalObjectiveMap
  /** False when the navigation request was refused; state and globals are then unchanged. */
  valid: boolean
  /** The SN book's exception code (e.g. `NB.2.1-4`, `SB.2.9-3`) when something was refused. */
  exception?: string
  /** The leaf activity to launch now; null when nothing is delivered. */
  deliver: string | null
  /** True when the delivered activity resumes a suspended attempt (cmi.entry = resume). */
  resumed: boolean
  /** The sequencing request that ran, when one did: usually the navigation request's own, but
   * an exit or post-condition rule of the activity being left can replace it (`retry`,
   * `continue`, `exit`…). Useful in logs: "choice of X delivered Y through a retry". */
  sequencing?: SequencingRequestType
  /** True when the sequencing session ended (exit/suspend of the course, flow past the end). */
  sessionEnded: boolean
  /**
   * True when the session ended with nothing suspended (no suspendAll, no suspended activity
   * left in the tree): the learner's attempt on the course is over. Global objectives of an
   * organization with objectivesGlobalToSystem false belong to that attempt and start afresh.
   */
  attemptEnded: boolean
}

/**
 * Overall Sequencing Process [OP.1]: navigation request (NB.2.1), termination request (TB.2.3),
 * sequencing request (SB.2.12), delivery request (DB.1.1), content delivery environment (DB.2).
 * Pass the SCO's final run-time values as `results` when the request follows its Terminate:
 * they are recorded before the attempt ends.
 */
export function processNavigationRequest(
  tree: ActivityTree,
  state: TrackingState,
  request: NavigationRequest,
  opts: ContextOptions & { results?: ScoResults } = {},
): NavigationOutcome {
  const ctx = openContext(tree, state, opts)
  // Abandoning throws the attempt's data away (SX-04a: a status set before abandonAll is lost).
  const abandoning = request.type === 'abandon' || request.type === 'abandonAll'
  if (
    opts.results &&
    !abandoning &&
    ctx.state.current !== null &&
    ctx.state.activities[ctx.state.current]?.active
  )
    recordResults(ctx, ctx.state.current, opts.results)
  // A refused request changes nothing but the results just recorded.
  const before = opts.results ? { s: cloneState(ctx.state), g: cloneGlobals(ctx.globals) } : null
  const refused = (exception: string): NavigationOutcome => ({
    state: before?.s ?? state,
    globals: before?.g ?? opts.globals ?? {},
    valid: false,
    exception,
    deliver: null,
    resumed: false,
    sessionEnded: false,
    attemptEnded: false,
  })
  const nav = navigationRequestProcess(ctx, request)
  if (nav.exception) return refused(nav.exception)
  if (ctx.state.current === null) selectAndRandomizeTree(ctx)
  let sequencing = nav.sequencing
  if (nav.termination) {
    const t = terminationRequestProcess(ctx, nav.termination)
    if (t.exception) return refused(t.exception)
    if (t.sequencingRequest) sequencing = t.sequencingRequest
  }
  rollupGlobalObjectiveReaders(ctx)
  return {
    state: ctx.state,
    globals: ctx.globals,
    valid: true,
    deliver: null,
    resumed: false,
    sessionEnded: false,
    attemptEnded: false,
    ...(sequencing ? { sequencing, ...sequenceAndDeliver(ctx, sequencing, request.target) } : {}),
  }
}

/**
 * OP.1 steps 3–4: the sequencing request, then the delivery of what it identified. Mutates
 * `ctx`. `dryRun` (request validity) stops before the Content Delivery Environment Process,
 * whose only refusal (DB.2-1, the activity is already being shown) it checks instead, and
 * leaves an ending session as it is.
 */
export function sequenceAndDeliver(
  ctx: SequencingContext,
  sequencing: SequencingRequestType,
  target: string | undefined,
  dryRun = false,
): Partial<NavigationOutcome> {
  const seq = sequencingRequestProcess(ctx, sequencing, target)
  if (seq.endSession) {
    if (dryRun) return { sessionEnded: true }
    endSession(ctx)
    const suspended =
      ctx.state.suspended !== null || ctx.state.activities[ctx.tree.root]?.suspended === true
    return { sessionEnded: true, attemptEnded: !suspended }
  }
  if (seq.exception || !seq.deliver) return seq.exception ? { exception: seq.exception } : {}
  const refusedDelivery = deliveryRequestProcess(ctx, seq.deliver)
  if (refusedDelivery) return { exception: refusedDelivery }
  const resumed = ctx.state.activities[seq.deliver]?.suspended === true
  if (dryRun) {
    const { current } = ctx.state
    const showing = current === seq.deliver && ctx.state.activities[current]?.active === true
    return showing ? { exception: 'DB.2-1' } : { deliver: seq.deliver, resumed }
  }
  const problem = contentDeliveryEnvironmentProcess(ctx, seq.deliver)
  if (problem) return { exception: problem }
  return { deliver: seq.deliver, resumed }
}

/** The sequencing session is over: nothing is current; a still open root attempt ends. */
function endSession(ctx: SequencingContext): void {
  const root = ctx.tree.root
  if (ctx.state.activities[root]?.active) {
    ctx.state.current = root
    endAttemptProcess(ctx, root)
  }
  ctx.state.current = null
  ctx.state.ended = true
}

function recordResults(ctx: SequencingContext, id: string, results: ScoResults): void {
  applyScoResults(ctx, id, results)
  overallRollupProcess(ctx, id)
  rollupGlobalObjectiveReaders(ctx)
}

/**
 * Records a SCO's run-time values on its activity and rolls the tree up, without navigating
 * (for commits during the attempt).
 */
export function reportScoResults(
  tree: ActivityTree,
  state: TrackingState,
  activityId: string,
  results: ScoResults,
  opts: ContextOptions = {},
): { state: TrackingState; globals: GlobalObjectiveMap } {
  const ctx = openContext(tree, state, opts)
  recordResults(ctx, activityId, results)
  return { state: ctx.state, globals: ctx.globals }
}
