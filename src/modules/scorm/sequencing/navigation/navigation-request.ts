import {
  availableChildren,
  commonAncestor,
  def,
  pathToRoot,
  type SequencingContext,
} from '../state/sequencing-context.ts'
import type { SequencingRequestType, TerminationRequest } from './termination-request.ts'

export type NavigationRequestType =
  | 'start'
  | 'resumeAll'
  | 'continue'
  | 'previous'
  | 'forward'
  | 'backward'
  | 'choice'
  | 'jump'
  | 'exit'
  | 'exitAll'
  | 'abandon'
  | 'abandonAll'
  | 'suspendAll'

export interface NavigationRequest {
  type: NavigationRequestType
  /** Activity id, for `choice` and `jump`. */
  target?: string
}

export interface NavigationResult {
  exception?: string
  termination?: TerminationRequest
  sequencing?: SequencingRequestType
}

/**
 * Navigation Request Process [NB.2.1]: whether the request may be made now, and the
 * termination and sequencing requests it stands for.
 */
export function navigationRequestProcess(
  ctx: SequencingContext,
  request: NavigationRequest,
): NavigationResult {
  const current = ctx.state.current
  const active = current !== null && ctx.state.activities[current]?.active === true
  const exitFirst = (sequencing: SequencingRequestType): NavigationResult =>
    active ? { termination: 'exit', sequencing } : { sequencing }
  switch (request.type) {
    case 'start':
      return current === null ? { sequencing: 'start' } : { exception: 'NB.2.1-1' }
    case 'resumeAll':
      if (current !== null) return { exception: 'NB.2.1-1' }
      return ctx.state.suspended !== null ? { sequencing: 'resumeAll' } : { exception: 'NB.2.1-3' }
    case 'continue': {
      if (current === null) return { exception: 'NB.2.1-2' }
      const parent = def(ctx, current).parent
      if (parent === null || !def(ctx, parent).controlMode.flow) return { exception: 'NB.2.1-4' }
      return exitFirst('continue')
    }
    case 'previous': {
      if (current === null) return { exception: 'NB.2.1-2' }
      const parent = def(ctx, current).parent
      if (parent === null) return { exception: 'NB.2.1-6' }
      const mode = def(ctx, parent).controlMode
      if (!mode.flow || mode.forwardOnly) return { exception: 'NB.2.1-5' }
      return exitFirst('previous')
    }
    case 'forward':
    case 'backward':
      return { exception: 'NB.2.1-7' }
    case 'choice':
      return choiceNavigation(ctx, request.target ?? '', active)
    case 'jump':
      // The target must be in the tree as the learner has it: not left out by selection
      // (a jump there would leave the Current Activity outside every available children list).
      if (!request.target || !isAvailable(ctx, request.target)) return { exception: 'NB.2.1-11' }
      if (current === null) return { exception: 'NB.2.1-2' }
      return exitFirst('jump')
    case 'exit':
      if (current === null) return { exception: 'NB.2.1-2' }
      return active ? { termination: 'exit', sequencing: 'exit' } : { exception: 'NB.2.1-12' }
    case 'exitAll':
    case 'abandonAll':
    case 'suspendAll':
      if (current === null) return { exception: 'NB.2.1-2' }
      return { termination: request.type, sequencing: 'exit' }
    case 'abandon':
      if (current === null) return { exception: 'NB.2.1-2' }
      return active ? { termination: 'abandon', sequencing: 'exit' } : { exception: 'NB.2.1-12' }
  }
}

function isAvailable(ctx: SequencingContext, id: string): boolean {
  if (!ctx.tree.activities[id]) return false
  return pathToRoot(ctx, id).every((a) => {
    const parent = def(ctx, a).parent
    return parent === null || availableChildren(ctx, parent).includes(a)
  })
}

function choiceNavigation(
  ctx: SequencingContext,
  target: string,
  active: boolean,
): NavigationResult {
  const t = ctx.tree.activities[target]
  if (!t) return { exception: 'NB.2.1-11' }
  if (t.parent !== null && !def(ctx, t.parent).controlMode.choice) return { exception: 'NB.2.1-10' }
  const current = ctx.state.current
  if (current === null) return { sequencing: 'choice' }
  // NB.2.1 step 7.1.2: every active activity from the Current Activity up to (not including)
  // the common ancestor must allow choice exit. For a sibling target that path is the Current
  // Activity itself: a leaf with choiceExit false keeps the learner in it until it ends, however
  // the request is made (a forged request, not only the table of contents the player hides).
  const ancestor = commonAncestor(ctx, current, target)
  for (const a of pathToRoot(ctx, current)) {
    if (a === ancestor) break
    if (ctx.state.activities[a]?.active && !def(ctx, a).controlMode.choiceExit) {
      return { exception: 'NB.2.1-8' }
    }
  }
  return active ? { termination: 'exit', sequencing: 'choice' } : { sequencing: 'choice' }
}
