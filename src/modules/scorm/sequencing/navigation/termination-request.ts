import { overallRollupProcess } from '../rollup/overall-rollup.ts'
import { sequencingRulesCheckProcess } from '../rules/sequencing-rules.ts'
import { def, pathToRoot, type SequencingContext, st } from '../state/sequencing-context.ts'
import { endAttemptProcess, terminateDescendentAttemptsProcess } from './end-attempt.ts'

export type TerminationRequest = 'exit' | 'exitAll' | 'suspendAll' | 'abandon' | 'abandonAll'
export type SequencingRequestType =
  | 'start'
  | 'resumeAll'
  | 'continue'
  | 'previous'
  | 'choice'
  | 'jump'
  | 'exit'
  | 'retry'

export interface TerminationResult {
  exception?: string
  /** A sequencing request that replaces the pending one (from post conditions or Exit All). */
  sequencingRequest?: SequencingRequestType
}

/** Sequencing Exit Action Rules Subprocess [TB.2.1]: the outermost ancestor of the Current
 * Activity whose exit rule fires ends its attempt and becomes the Current Activity. */
export function sequencingExitActionRulesSubprocess(ctx: SequencingContext): void {
  const current = ctx.state.current
  if (current === null) return
  const path = pathToRoot(ctx, current).slice(1).reverse()
  const target = path.find((a) => sequencingRulesCheckProcess(ctx, a, 'exit', ['exit']) !== null)
  if (target === undefined) return
  terminateDescendentAttemptsProcess(ctx, target)
  endAttemptProcess(ctx, target)
  ctx.state.current = target
}

/** Sequencing Post Condition Rules Subprocess [TB.2.2]. */
export function sequencingPostConditionRulesSubprocess(ctx: SequencingContext): {
  termination?: 'exitParent' | 'exitAll'
  sequencing?: SequencingRequestType
} {
  const current = ctx.state.current
  if (current === null || ctx.state.activities[current]?.suspended) return {}
  const action = sequencingRulesCheckProcess(ctx, current, 'post', [
    'exitParent',
    'exitAll',
    'retry',
    'retryAll',
    'continue',
    'previous',
  ])
  switch (action) {
    case 'retry':
    case 'continue':
    case 'previous':
      return { sequencing: action }
    case 'exitParent':
    case 'exitAll':
      return { termination: action }
    case 'retryAll':
      return { termination: 'exitAll', sequencing: 'retry' }
    default:
      return {}
  }
}

/**
 * Termination Request Process [TB.2.3]: ends (exit, exitAll), suspends (suspendAll) or drops
 * (abandon, abandonAll) the current attempt. Exit runs the exit and post condition rules,
 * whose exitParent climbs while it keeps firing.
 */
export function terminationRequestProcess(
  ctx: SequencingContext,
  request: TerminationRequest,
): TerminationResult {
  const current = ctx.state.current
  if (current === null) return { exception: 'TB.2.3-1' }
  const active = ctx.state.activities[current]?.active === true
  if ((request === 'exit' || request === 'abandon') && !active) return { exception: 'TB.2.3-2' }
  switch (request) {
    case 'exit':
      return exitTermination(ctx)
    case 'exitAll':
      return exitAllTermination(ctx)
    case 'suspendAll':
      return suspendAllTermination(ctx)
    case 'abandon':
      delete st(ctx, current).active
      return {}
    case 'abandonAll':
      for (const a of pathToRoot(ctx, current)) delete st(ctx, a).active
      ctx.state.current = ctx.tree.root
      return { sequencingRequest: 'exit' }
  }
}

function exitTermination(ctx: SequencingContext): TerminationResult {
  endAttemptProcess(ctx, ctx.state.current as string)
  sequencingExitActionRulesSubprocess(ctx)
  for (;;) {
    const post = sequencingPostConditionRulesSubprocess(ctx)
    if (post.termination === 'exitAll') {
      const all = exitAllTermination(ctx)
      return post.sequencing ? { ...all, sequencingRequest: post.sequencing } : all
    }
    const current = ctx.state.current as string
    if (post.termination === 'exitParent') {
      const parent = def(ctx, current).parent
      if (parent === null) return { exception: 'TB.2.3-4' }
      ctx.state.current = parent
      endAttemptProcess(ctx, parent)
      continue
    }
    if (current === ctx.tree.root && post.sequencing !== 'retry') {
      return { sequencingRequest: 'exit' }
    }
    return post.sequencing ? { sequencingRequest: post.sequencing } : {}
  }
}

function exitAllTermination(ctx: SequencingContext): TerminationResult {
  const current = ctx.state.current as string
  if (ctx.state.activities[current]?.active) endAttemptProcess(ctx, current)
  terminateDescendentAttemptsProcess(ctx, ctx.tree.root)
  endAttemptProcess(ctx, ctx.tree.root)
  ctx.state.current = ctx.tree.root
  return { sequencingRequest: 'exit' }
}

function suspendAllTermination(ctx: SequencingContext): TerminationResult {
  const current = ctx.state.current as string
  const s = ctx.state.activities[current] ?? {}
  let suspended: string
  if (s.active || s.suspended) {
    overallRollupProcess(ctx, current)
    suspended = current
  } else {
    const parent = def(ctx, current).parent
    if (parent === null) return { exception: 'TB.2.3-3' }
    suspended = parent
  }
  ctx.state.suspended = suspended
  for (const a of pathToRoot(ctx, suspended)) {
    const as = st(ctx, a)
    delete as.active
    as.suspended = true
  }
  ctx.state.current = ctx.tree.root
  return { sequencingRequest: 'exit' }
}
