import { checkActivityProcess } from '../rules/sequencing-rules.ts'
import {
  availableChildren,
  commonAncestor,
  def,
  isLeaf,
  pathToRoot,
  type SequencingContext,
  st,
  stampAttempt,
} from '../state/sequencing-context.ts'
import { terminateDescendentAttemptsProcess } from './end-attempt.ts'
import { randomizeChildrenProcess } from './selection.ts'

/** Delivery Request Process [DB.1.1]: only a leaf can be delivered, and only when neither it
 * nor an ancestor is disabled or out of attempts. */
export function deliveryRequestProcess(ctx: SequencingContext, id: string): string | null {
  if (!isLeaf(ctx, id)) return 'DB.1.1-1'
  for (const a of pathToRoot(ctx, id).reverse()) {
    if (checkActivityProcess(ctx, a)) return 'DB.1.1-3'
  }
  return null
}

/** Clear Suspended Activity Subprocess [DB.2.1]. */
export function clearSuspendedActivitySubprocess(ctx: SequencingContext, id: string): void {
  const suspended = ctx.state.suspended
  if (suspended !== null) {
    const ancestor = commonAncestor(ctx, id, suspended)
    for (const a of pathToRoot(ctx, suspended)) {
      const s = st(ctx, a)
      if (isLeaf(ctx, a)) delete s.suspended
      else if (!availableChildren(ctx, a).some((c) => ctx.state.activities[c]?.suspended))
        delete s.suspended
      if (a === ancestor) break
    }
  }
  ctx.state.suspended = null
}

/**
 * Content Delivery Environment Process [DB.2]: the attempt bookkeeping of a delivery. Every
 * activity from the root to the delivered one that is not active becomes active: a suspended
 * one resumes its attempt, any other begins a new attempt (attempt count + 1, fresh objective
 * and attempt progress information, reordering for onEachNewAttempt randomization).
 */
export function contentDeliveryEnvironmentProcess(
  ctx: SequencingContext,
  id: string,
): string | null {
  const current = ctx.state.current
  if (current !== null && ctx.state.activities[current]?.active && current === id) return 'DB.2-1'
  if (id !== ctx.state.suspended) clearSuspendedActivitySubprocess(ctx, id)
  terminateDescendentAttemptsProcess(ctx, id)
  for (const a of pathToRoot(ctx, id).reverse()) {
    const s = st(ctx, a)
    if (s.active) continue
    if (def(ctx, a).deliveryControls.tracked) {
      if (s.suspended) delete s.suspended
      else beginAttempt(ctx, a)
    }
    s.active = true
  }
  ctx.state.current = id
  ctx.state.suspended = null
  delete ctx.state.ended
  return null
}

function beginAttempt(ctx: SequencingContext, id: string): void {
  // `once` reordering happened when the session started (selectAndRandomizeTree).
  if (def(ctx, id).randomization.randomizationTiming === 'onEachNewAttempt')
    randomizeChildrenProcess(ctx, id)
  const s = st(ctx, id)
  s.count = (s.count ?? 0) + 1
  s.progress = true
  delete s.objectives
  delete s.completed
  delete s.amount
  delete s.duration
  delete s.reportedCompletion
  delete s.reportedSuccess
  stampAttempt(ctx, id)
}
