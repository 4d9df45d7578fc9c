/**
 * Choice: the Choice Sequencing Request Process [SB.2.9] with the Choice Activity Traversal
 * [SB.2.9.1], Choice Flow [SB.2.9.2] and Choice Flow Tree Traversal [SB.2.9.2.1] subprocesses.
 */
import { sequencingRulesCheckProcess } from '../rules/sequencing-rules.ts'
import {
  availableChildren,
  commonAncestor,
  def,
  isAncestor,
  isForward,
  isLeaf,
  pathToRoot,
  type SequencingContext,
} from '../state/sequencing-context.ts'
import { endAttemptProcess, terminateDescendentAttemptsProcess } from './end-attempt.ts'
import { type Direction, flowSubprocess } from './flow.ts'

export interface ChoiceResult {
  deliver?: string
  exception?: string
}

/** Choice Activity Traversal Subprocess [SB.2.9.1]. */
export function choiceActivityTraversalSubprocess(
  ctx: SequencingContext,
  id: string,
  direction: Direction,
): string | null {
  if (direction === 'forward') {
    return sequencingRulesCheckProcess(ctx, id, 'pre', ['stopForwardTraversal']) === null
      ? null
      : 'SB.2.9.1-1'
  }
  const parent = def(ctx, id).parent
  if (parent === null) return 'SB.2.9.1-3'
  return def(ctx, parent).controlMode.forwardOnly ? 'SB.2.9.1-2' : null
}

/** Choice Flow Tree Traversal Subprocess [SB.2.9.2.1]: the next (previous) activity in the
 * tree, climbing out of clusters; null past either end. */
export function choiceFlowTreeTraversalSubprocess(
  ctx: SequencingContext,
  id: string,
  direction: Direction,
): string | null {
  const parent = def(ctx, id).parent
  if (parent === null) return null
  const list = availableChildren(ctx, parent)
  const i = list.indexOf(id)
  const j = direction === 'forward' ? i + 1 : i - 1
  if (j < 0 || j >= list.length) return choiceFlowTreeTraversalSubprocess(ctx, parent, direction)
  return list[j] as string
}

/** Choice Flow Subprocess [SB.2.9.2]. */
export function choiceFlowSubprocess(
  ctx: SequencingContext,
  id: string,
  direction: Direction,
): string {
  return choiceFlowTreeTraversalSubprocess(ctx, id, direction) ?? id
}

/** Steps 2–4 of SB.2.9: the target and its ancestors must be available and not hidden from
 * choice, and its parent must allow choice. */
function choiceTargetCheck(ctx: SequencingContext, target: string): string | null {
  for (const a of pathToRoot(ctx, target).reverse()) {
    const parent = def(ctx, a).parent
    if (parent !== null && !availableChildren(ctx, parent).includes(a)) return 'SB.2.9-2'
    if (sequencingRulesCheckProcess(ctx, a, 'pre', ['hiddenFromChoice']) !== null) return 'SB.2.9-3'
  }
  const parent = def(ctx, target).parent
  if (parent !== null && !def(ctx, parent).controlMode.choice) return 'SB.2.9-4'
  return null
}

/** Choice Sequencing Request Process [SB.2.9]. */
export function choiceSequencingRequestProcess(
  ctx: SequencingContext,
  target: string,
): ChoiceResult {
  if (!ctx.tree.activities[target]) return { exception: 'SB.2.9-1' }
  const targetProblem = choiceTargetCheck(ctx, target)
  if (targetProblem) return { exception: targetProblem }
  const current = ctx.state.current
  const ancestor = current === null ? ctx.tree.root : commonAncestor(ctx, current, target)
  const problem =
    current === null ? fromAbove(ctx, null, target) : pathProblem(ctx, current, target, ancestor)
  if (problem) return { exception: problem }
  if (isLeaf(ctx, target)) return { deliver: target }
  const flow = flowSubprocess(ctx, target, 'forward', true)
  if (!flow.deliverable) {
    terminateDescendentAttemptsProcess(ctx, ancestor)
    endAttemptProcess(ctx, ancestor)
    ctx.state.current = target
    return { exception: 'SB.2.9-9' }
  }
  return { deliver: flow.activity }
}

/** Steps 6–10 of SB.2.9, by where the target lies relative to the Current Activity. */
function pathProblem(
  ctx: SequencingContext,
  current: string,
  target: string,
  ancestor: string,
): string | null {
  if (target === current) return null
  const parent = def(ctx, current).parent
  if (parent !== null && parent === def(ctx, target).parent) {
    const list = availableChildren(ctx, parent)
    const from = list.indexOf(current)
    const to = list.indexOf(target)
    const direction: Direction = to > from ? 'forward' : 'backward'
    const between = direction === 'forward' ? list.slice(from, to) : list.slice(to + 1, from + 1)
    if (between.length === 0) return 'SB.2.9-5'
    for (const a of between) {
      const e = choiceActivityTraversalSubprocess(ctx, a, direction)
      if (e) return e
    }
    return null
  }
  if (ancestor === current) return fromAbove(ctx, current, target)
  if (ancestor === target) {
    const path = pathToRoot(ctx, current)
    for (const a of path.slice(0, path.indexOf(target))) {
      if (!def(ctx, a).controlMode.choiceExit) return 'SB.2.9-7'
    }
    return null
  }
  return acrossTree(ctx, current, target, ancestor)
}

/**
 * Case 8: the target lies below the Current Activity (or no activity is current). Here and in
 * case 10 the traversal check (stopForwardTraversal) covers the clusters passed on the way to
 * the target, not the target itself: its own rule stops flows out of it, and ADL's LMS lets
 * the learner choose it (CTS case CM-07e chooses a cluster whose rule always stops traversal).
 */
function fromAbove(ctx: SequencingContext, current: string | null, target: string): string | null {
  const path = pathToRoot(ctx, target).reverse()
  const below = current === null ? path : path.slice(path.indexOf(current) + 1)
  if (below.length === 0) return 'SB.2.9-5'
  for (const a of below) {
    const e = a === target ? null : choiceActivityTraversalSubprocess(ctx, a, 'forward')
    if (e) return e
    if (preventsActivation(ctx, a, target)) {
      return 'SB.2.9-6'
    }
  }
  return null
}

/** Case 10: the target is elsewhere in the tree; choiceExit and constrainChoice apply on the
 * way up, stopForwardTraversal and preventActivation on the way down. */
function acrossTree(
  ctx: SequencingContext,
  current: string,
  target: string,
  ancestor: string,
): string | null {
  const up = pathToRoot(ctx, current)
  const climb = up.slice(0, up.indexOf(ancestor))
  if (climb.length === 0) return 'SB.2.9-5'
  let constrained: string | null = null
  for (const a of climb) {
    if (!def(ctx, a).controlMode.choiceExit) return 'SB.2.9-7'
    // The constraint comes from a cluster the learner leaves, not from the activity they are
    // in (ADL's CTS case CM-07d chooses past a constrained current activity).
    if (constrained === null && a !== current && def(ctx, a).constrainChoice) constrained = a
  }
  if (constrained !== null) {
    const direction: Direction = isForward(ctx, constrained, target) ? 'forward' : 'backward'
    const consider = choiceFlowSubprocess(ctx, constrained, direction)
    if (target !== consider && target !== constrained && !isAncestor(ctx, consider, target)) {
      return 'SB.2.9-8'
    }
  }
  const down = pathToRoot(ctx, target).reverse()
  const path = down.slice(down.indexOf(ancestor))
  const forward = isForward(ctx, current, target)
  for (const a of path) {
    if (forward && a !== ancestor && a !== target) {
      const e = choiceActivityTraversalSubprocess(ctx, a, 'forward')
      if (e) return e
    }
    if (a !== ancestor && preventsActivation(ctx, a, target)) {
      return 'SB.2.9-6'
    }
  }
  return null
}

/** An inactive cluster with adlseq:preventActivation keeps choice from starting attempts on its
 * descendants; choosing the cluster itself is allowed (ADL's CTS case CM-17b). */
function preventsActivation(ctx: SequencingContext, a: string, target: string): boolean {
  return a !== target && !ctx.state.activities[a]?.active && def(ctx, a).preventActivation
}
