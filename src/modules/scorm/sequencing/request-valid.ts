/**
 * adl.nav.request_valid.* and the answers behind the player's controls and table of contents,
 * found by running the book's processes on copies of the state; nothing is kept.
 */
import { sequenceAndDeliver } from './engine.ts'
import {
  type NavigationRequest,
  navigationRequestProcess,
} from './navigation/navigation-request.ts'
import { selectAndRandomizeTree } from './navigation/selection.ts'
import {
  type SequencingRequestType,
  terminationRequestProcess,
} from './navigation/termination-request.ts'
import { rollupGlobalObjectiveReaders } from './rollup/overall-rollup.ts'
import {
  type ContextOptions,
  forkContext,
  openContext,
  type SequencingContext,
} from './state/sequencing-context.ts'
import type { TrackingState } from './state/tracking-state.types.ts'
import type { ActivityTree } from './tree/activity-tree.types.ts'

/** The answers behind adl.nav.request_valid.* (and the player's buttons and table of
 * contents). */
export interface RequestValidity {
  continue: boolean
  previous: boolean
  /** Per activity id: would `{target=id}choice` deliver something now. */
  choice: Record<string, boolean>
  /** Per leaf activity id: would `{target=id}jump` deliver it now. */
  jump: Record<string, boolean>
}

/**
 * Whether each request would succeed now, as processNavigationRequest would decide it (the
 * termination of the current attempt included). Continue also counts as valid when it would
 * end the course (flow past the last activity). The random source is fixed so answers do not
 * depend on a draw.
 *
 * Cost: every one of these requests first ends the current attempt the same way (Exit, with
 * its rollup, exit and post-condition rules), so that runs once, and each request then runs its
 * sequencing and delivery on a copy of the result: on a 1 000-activity course one call answers
 * ~2 000 requests (bench/sequencing.bench.ts).
 */
export function navigationRequestValidity(
  tree: ActivityTree,
  state: TrackingState,
  opts: Pick<ContextOptions, 'globals'> = {},
): RequestValidity {
  const tryRequest = validityChecker(tree, state, opts)
  const out: RequestValidity = {
    continue: tryRequest({ type: 'continue' }),
    previous: tryRequest({ type: 'previous' }),
    choice: {},
    jump: {},
  }
  for (const [id, a] of Object.entries(tree.activities)) {
    out.choice[id] = tryRequest({ type: 'choice', target: id })
    if (a.children.length === 0) out.jump[id] = tryRequest({ type: 'jump', target: id })
  }
  return out
}

/**
 * One answer of {@link navigationRequestValidity}: the cheap path for a single
 * adl.nav.request_valid.* read. An unknown target is not valid.
 */
export function isNavigationRequestValid(
  tree: ActivityTree,
  state: TrackingState,
  request: NavigationRequest,
  opts: Pick<ContextOptions, 'globals'> = {},
): boolean {
  return validityChecker(tree, state, opts)(request)
}

/**
 * Whether a sequencing request only reads the context, so it can run on the shared one without
 * a copy: a choice of a leaf (SB.2.9 ends attempts only when a chosen cluster has nothing to
 * deliver) and a jump (SB.2.13 delivers its target as it is), inside a session (outside one,
 * selection and randomization write). The property test compares every answer with the
 * request itself.
 */
function readOnly(
  tree: ActivityTree,
  ctx: SequencingContext,
  sequencing: SequencingRequestType,
  target: string | undefined,
): boolean {
  if (ctx.state.current === null || target === undefined) return false
  if (sequencing === 'jump') return true
  return sequencing === 'choice' && tree.activities[target]?.children.length === 0
}

/** Answers requests on one state; the shared Exit termination runs at most once. */
function validityChecker(
  tree: ActivityTree,
  state: TrackingState,
  opts: Pick<ContextOptions, 'globals'>,
): (request: NavigationRequest) => boolean {
  const base = openContext(tree, state, { ...opts, random: () => 0 })
  let terminated: { ctx: SequencingContext; override?: SequencingRequestType } | null | undefined
  const afterExit = () => {
    if (terminated !== undefined) return terminated
    const ctx = forkContext(base)
    const t = terminationRequestProcess(ctx, 'exit')
    rollupGlobalObjectiveReaders(ctx)
    terminated = t.exception
      ? null
      : { ctx, ...(t.sequencingRequest ? { override: t.sequencingRequest } : {}) }
    return terminated
  }
  return (request) => {
    if (request.target !== undefined && !tree.activities[request.target]) return false
    const nav = navigationRequestProcess(base, request)
    if (nav.exception || !nav.sequencing) return false
    let from = base
    let sequencing: SequencingRequestType = nav.sequencing
    if (nav.termination) {
      const t = afterExit()
      if (t === null) return false
      from = t.ctx
      sequencing = t.override ?? sequencing
    }
    const ctx = readOnly(tree, from, sequencing, request.target) ? from : forkContext(from)
    if (ctx.state.current === null) selectAndRandomizeTree(ctx)
    const out = sequenceAndDeliver(ctx, sequencing, request.target, true)
    return (
      typeof out.deliver === 'string' || (request.type === 'continue' && out.sessionEnded === true)
    )
  }
}

/** Parses an adl.nav.request value (`continue`, `{target=act_3}choice`, `_none_`…); null for
 * `_none_` and anything unreadable. */
export function parseNavigationRequest(value: string): NavigationRequest | null {
  const m = /^\{target=([^}]*)\}(choice|jump)$/.exec(value.trim())
  if (m) return { type: m[2] as 'choice' | 'jump', target: (m[1] as string).trim() }
  const simple = [
    'start',
    'resumeAll',
    'continue',
    'previous',
    'exit',
    'exitAll',
    'abandon',
    'abandonAll',
    'suspendAll',
  ] as const
  const found = simple.find((s) => s === value.trim())
  return found ? { type: found } : null
}

/**
 * The navigation request to process when a SCO terminates: cmi.exit `time-out` or `logout`
 * (deprecated) ends the course as Exit All whatever the SCO asked (SCORM 2004 RTE §4.2.10);
 * otherwise the pending adl.nav.request, if any.
 */
export function requestAfterTerminate(
  exit: string | undefined,
  pending: NavigationRequest | null,
): NavigationRequest | null {
  if (exit === 'time-out' || exit === 'logout') return { type: 'exitAll' }
  return pending
}
