/**
 * Sequencing Request Process [SB.2.12] and the requests it dispatches to: Start [SB.2.5],
 * Resume All [SB.2.6], Exit [SB.2.11], Retry [SB.2.10], Jump [SB.2.13]; Continue, Previous and
 * Choice live in flow.ts and choice.ts.
 */
import { globalObjectiveIds } from '../state/global-objectives.ts'
import { isLeaf, type SequencingContext } from '../state/sequencing-context.ts'
import { choiceSequencingRequestProcess } from './choice.ts'
import {
  continueSequencingRequestProcess,
  type FlowResult,
  flowSubprocess,
  previousSequencingRequestProcess,
} from './flow.ts'
import type { SequencingRequestType } from './termination-request.ts'

export interface SequencingResult {
  deliver?: string
  endSession?: boolean
  exception?: string
}

function fromFlow(flow: FlowResult, exception: string): SequencingResult {
  if (flow.deliverable) return { deliver: flow.activity }
  return {
    ...(flow.endSession ? { endSession: true } : {}),
    exception: flow.exception ?? exception,
  }
}

/** Start Sequencing Request Process [SB.2.5]. */
export function startSequencingRequestProcess(ctx: SequencingContext): SequencingResult {
  if (ctx.state.current !== null) return { exception: 'SB.2.5-1' }
  const root = ctx.tree.root
  if (isLeaf(ctx, root)) return { deliver: root }
  return fromFlow(flowSubprocess(ctx, root, 'forward', true), 'SB.2.5-3')
}

/** Resume All Sequencing Request Process [SB.2.6]. */
export function resumeAllSequencingRequestProcess(ctx: SequencingContext): SequencingResult {
  if (ctx.state.current !== null) return { exception: 'SB.2.6-1' }
  if (ctx.state.suspended === null) return { exception: 'SB.2.6-2' }
  return { deliver: ctx.state.suspended }
}

/** Exit Sequencing Request Process [SB.2.11]: exiting the root ends the session. */
export function exitSequencingRequestProcess(ctx: SequencingContext): SequencingResult {
  const current = ctx.state.current
  if (current === null) return { exception: 'SB.2.11-1' }
  if (ctx.state.activities[current]?.active) return { exception: 'SB.2.11-2' }
  return current === ctx.tree.root ? { endSession: true } : {}
}

/** Retry Sequencing Request Process [SB.2.10]. */
export function retrySequencingRequestProcess(ctx: SequencingContext): SequencingResult {
  const current = ctx.state.current
  if (current === null) return { exception: 'SB.2.10-1' }
  const s = ctx.state.activities[current] ?? {}
  if (s.active || s.suspended) return { exception: 'SB.2.10-2' }
  if (current === ctx.tree.root && !ctx.tree.objectivesGlobalToSystem) clearAttemptGlobals(ctx)
  if (isLeaf(ctx, current)) return { deliver: current }
  const flow = flowSubprocess(ctx, current, 'forward', true)
  return flow.deliverable ? { deliver: flow.activity } : { exception: 'SB.2.10-3' }
}

/**
 * A retry of the root begins a new attempt on the course. With objectivesGlobalToSystem false
 * the global objectives are shared only within one attempt on the activity tree, so they start
 * unknown again. ADL's reference LMS does the
 * same (it clears the course-scoped objectives when the root is retried), and CTS case RU-13d
 * depends on it: after the retry its cluster's skip rule sees an unknown objective.
 */
function clearAttemptGlobals(ctx: SequencingContext): void {
  for (const id of globalObjectiveIds(ctx.tree)) {
    if (ctx.globals[id] === undefined) continue
    delete ctx.globals[id]
    ctx.changedGlobals.add(id)
  }
}

/** Jump Sequencing Request Process [SB.2.13, 4th Edition]: delivers the target as it is. */
export function jumpSequencingRequestProcess(
  ctx: SequencingContext,
  target: string,
): SequencingResult {
  if (ctx.state.current === null) return { exception: 'SB.2.13-1' }
  return { deliver: target }
}

/** Sequencing Request Process [SB.2.12]. */
export function sequencingRequestProcess(
  ctx: SequencingContext,
  request: SequencingRequestType,
  target?: string,
): SequencingResult {
  switch (request) {
    case 'start':
      return startSequencingRequestProcess(ctx)
    case 'resumeAll':
      return resumeAllSequencingRequestProcess(ctx)
    case 'exit':
      return exitSequencingRequestProcess(ctx)
    case 'retry':
      return retrySequencingRequestProcess(ctx)
    case 'continue':
      return fromFlow(continueSequencingRequestProcess(ctx), 'SB.2.7-2')
    case 'previous':
      return fromFlow(previousSequencingRequestProcess(ctx), 'SB.2.8-2')
    case 'choice':
      return choiceSequencingRequestProcess(ctx, target ?? '')
    case 'jump':
      return jumpSequencingRequestProcess(ctx, target ?? '')
  }
}
