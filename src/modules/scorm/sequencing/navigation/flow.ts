/**
 * Flow navigation: the Flow Tree Traversal [SB.2.1], Flow Activity Traversal [SB.2.2] and Flow
 * [SB.2.3] subprocesses, and the Continue [SB.2.7] and Previous [SB.2.8] sequencing requests.
 */
import { checkActivityProcess, sequencingRulesCheckProcess } from '../rules/sequencing-rules.ts'
import {
  availableChildren,
  def,
  isLeaf,
  type SequencingContext,
} from '../state/sequencing-context.ts'
import { terminateDescendentAttemptsProcess } from './end-attempt.ts'

export type Direction = 'forward' | 'backward'

export interface TraversalResult {
  next: string | null
  direction: Direction
  endSession?: boolean
  exception?: string
}

function siblings(ctx: SequencingContext, id: string): string[] {
  const parent = def(ctx, id).parent
  return parent === null ? [id] : availableChildren(ctx, parent)
}

/** The last activity of a forward preorder traversal of the tree. */
function lastInTree(ctx: SequencingContext): string {
  let a = ctx.tree.root
  for (;;) {
    const kids = availableChildren(ctx, a)
    const last = kids[kids.length - 1]
    if (last === undefined) return a
    a = last
  }
}

/** Flow Tree Traversal Subprocess [SB.2.1]. */
export function flowTreeTraversalSubprocess(
  ctx: SequencingContext,
  start: string,
  direction: Direction,
  considerChildren: boolean,
  previous: Direction | null = null,
): TraversalResult {
  let activity = start
  let reversed = false
  const sibs = siblings(ctx, activity)
  if (previous === 'backward' && sibs[sibs.length - 1] === activity && def(ctx, activity).parent) {
    direction = 'backward'
    activity = sibs[0] as string
    reversed = true
  }
  if (direction === 'forward') {
    const isRoot = activity === ctx.tree.root
    if (activity === lastInTree(ctx) || (isRoot && !considerChildren)) {
      terminateDescendentAttemptsProcess(ctx, ctx.tree.root)
      return { next: null, direction, endSession: true }
    }
    if (isLeaf(ctx, activity) || !considerChildren) {
      const list = siblings(ctx, activity)
      const i = list.indexOf(activity)
      if (i === list.length - 1) {
        return flowTreeTraversalSubprocess(
          ctx,
          def(ctx, activity).parent as string,
          'forward',
          false,
        )
      }
      return { next: list[i + 1] as string, direction }
    }
    const kids = availableChildren(ctx, activity)
    return kids.length > 0
      ? { next: kids[0] as string, direction }
      : { next: null, direction, exception: 'SB.2.1-2' }
  }
  if (activity === ctx.tree.root) return { next: null, direction, exception: 'SB.2.1-3' }
  if (isLeaf(ctx, activity) || !considerChildren) {
    // SB.2.1 step 4.2.1: no walking backwards through a forwardOnly cluster (CTS CM-07e: from
    // the first child of a cluster whose parent is forwardOnly, Previous has nowhere to go).
    const parent = def(ctx, activity).parent
    if (!reversed && parent !== null && def(ctx, parent).controlMode.forwardOnly) {
      return { next: null, direction, exception: 'SB.2.1-4' }
    }
    const list = siblings(ctx, activity)
    const i = list.indexOf(activity)
    // Reversed: a forward walk inside a forwardOnly cluster entered backwards ran off its end;
    // the walk leaves the cluster backwards, from its first child.
    if (i === 0 || reversed) {
      const parent = def(ctx, activity).parent as string
      return flowTreeTraversalSubprocess(ctx, parent, 'backward', false)
    }
    return { next: list[i - 1] as string, direction }
  }
  const kids = availableChildren(ctx, activity)
  if (kids.length === 0) return { next: null, direction, exception: 'SB.2.1-2' }
  if (def(ctx, activity).controlMode.forwardOnly) {
    return { next: kids[0] as string, direction: 'forward' }
  }
  return { next: kids[kids.length - 1] as string, direction: 'backward' }
}

export interface FlowResult {
  deliverable: boolean
  activity: string
  endSession?: boolean
  exception?: string
}

/** Flow Activity Traversal Subprocess [SB.2.2]: skips activities whose skip rule fires and
 * descends into clusters until it reaches a deliverable leaf. */
export function flowActivityTraversalSubprocess(
  ctx: SequencingContext,
  activity: string,
  direction: Direction,
  previous: Direction | null,
  depth = 0,
): FlowResult {
  // Each step moves through the tree; a walk longer than twice its size is going round.
  if (depth > 2 * Object.keys(ctx.tree.activities).length) {
    return { deliverable: false, activity, exception: 'SB.2.2-2' }
  }
  const parent = def(ctx, activity).parent
  if (parent !== null && !def(ctx, parent).controlMode.flow) {
    return { deliverable: false, activity, exception: 'SB.2.2-1' }
  }
  if (sequencingRulesCheckProcess(ctx, activity, 'pre', ['skip']) !== null) {
    const t = flowTreeTraversalSubprocess(ctx, activity, direction, false, previous)
    if (t.next === null) return failed(activity, t)
    if (previous === 'backward' && t.direction === 'backward') {
      return flowActivityTraversalSubprocess(ctx, t.next, t.direction, null, depth + 1)
    }
    return flowActivityTraversalSubprocess(ctx, t.next, direction, previous, depth + 1)
  }
  if (checkActivityProcess(ctx, activity)) {
    return { deliverable: false, activity, exception: 'SB.2.2-2' }
  }
  if (!isLeaf(ctx, activity)) {
    const t = flowTreeTraversalSubprocess(ctx, activity, direction, true, null)
    if (t.next === null) return failed(activity, t)
    if (direction === 'backward' && t.direction === 'forward') {
      return flowActivityTraversalSubprocess(ctx, t.next, 'forward', 'backward', depth + 1)
    }
    return flowActivityTraversalSubprocess(ctx, t.next, direction, null, depth + 1)
  }
  return { deliverable: true, activity }
}

function failed(activity: string, t: TraversalResult): FlowResult {
  return {
    deliverable: false,
    activity,
    ...(t.endSession ? { endSession: true } : {}),
    ...(t.exception ? { exception: t.exception } : {}),
  }
}

/** Flow Subprocess [SB.2.3]. */
export function flowSubprocess(
  ctx: SequencingContext,
  activity: string,
  direction: Direction,
  considerChildren: boolean,
): FlowResult {
  const t = flowTreeTraversalSubprocess(ctx, activity, direction, considerChildren, null)
  if (t.next === null) return failed(activity, t)
  return flowActivityTraversalSubprocess(ctx, t.next, direction, null)
}

/** Continue Sequencing Request Process [SB.2.7]. */
export function continueSequencingRequestProcess(ctx: SequencingContext): FlowResult {
  const current = ctx.state.current
  if (current === null) return { deliverable: false, activity: '', exception: 'SB.2.7-1' }
  const parent = def(ctx, current).parent
  if (parent !== null && !def(ctx, parent).controlMode.flow) {
    return { deliverable: false, activity: current, exception: 'SB.2.7-2' }
  }
  return flowSubprocess(ctx, current, 'forward', false)
}

/** Previous Sequencing Request Process [SB.2.8]. */
export function previousSequencingRequestProcess(ctx: SequencingContext): FlowResult {
  const current = ctx.state.current
  if (current === null) return { deliverable: false, activity: '', exception: 'SB.2.8-1' }
  const parent = def(ctx, current).parent
  if (parent !== null && !def(ctx, parent).controlMode.flow) {
    return { deliverable: false, activity: current, exception: 'SB.2.8-2' }
  }
  return flowSubprocess(ctx, current, 'backward', false)
}
