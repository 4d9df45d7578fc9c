import { overallRollupProcess } from '../rollup/overall-rollup.ts'
import {
  completedOf,
  primaryObjective,
  readObjective,
  setCompleted,
  setSatisfied,
} from '../state/objective-status.ts'
import {
  availableChildren,
  commonAncestor,
  def,
  isLeaf,
  pathToRoot,
  type SequencingContext,
  st,
} from '../state/sequencing-context.ts'

/**
 * End Attempt Process [UP.4]. For a tracked, not suspended leaf whose content does not set its
 * own status (completionSetByContent / objectiveSetByContent false, the defaults), an attempt
 * that reported nothing counts as completed and satisfied. A status the content reported, even
 * `unknown`, is left alone (ADL's CTS case CM-06 checks that an explicit `unknown` stays
 * unknown). A cluster is suspended when one of
 * its children is. Then the activity stops being active and the tree rolls up.
 */
export function endAttemptProcess(ctx: SequencingContext, id: string): void {
  const a = def(ctx, id)
  const s = st(ctx, id)
  if (isLeaf(ctx, id)) {
    if (a.deliveryControls.tracked && !s.suspended) {
      if (
        !a.deliveryControls.completionSetByContent &&
        !s.reportedCompletion &&
        completedOf(ctx, id) === undefined
      ) {
        setCompleted(ctx, id, true)
      }
      const primary = primaryObjective(ctx, id)
      if (
        !a.deliveryControls.objectiveSetByContent &&
        !s.reportedSuccess &&
        readObjective(ctx, id, primary, 'satisfied') === undefined
      ) {
        setSatisfied(ctx, id, true)
      }
    }
  } else {
    const anySuspended = availableChildren(ctx, id).some(
      (c) => ctx.state.activities[c]?.suspended === true,
    )
    if (anySuspended) s.suspended = true
    else delete s.suspended
  }
  delete s.active
  overallRollupProcess(ctx, id)
}

/**
 * Terminate Descendent Attempts Process [UP.3]: ends the attempts of the activities between
 * the Current Activity and its common ancestor with `id` (that ancestor excluded), innermost
 * first.
 */
export function terminateDescendentAttemptsProcess(ctx: SequencingContext, id: string): void {
  const current = ctx.state.current
  if (current === null) return
  const ancestor = commonAncestor(ctx, current, id)
  for (const a of pathToRoot(ctx, current)) {
    if (a === ancestor) break
    if (ctx.state.activities[a]?.active) endAttemptProcess(ctx, a)
  }
}
