import { def, isLeaf, pathToRoot, type SequencingContext } from '../state/sequencing-context.ts'
import type { ObjectiveMapDef } from '../tree/activity-tree.types.ts'
import { completionMeasureRollupProcess, measureRollupProcess } from './measure-rollup.ts'
import { activityProgressRollupProcess, objectiveRollupProcess } from './objective-rollup.ts'

/**
 * Overall Rollup Process [RB.1.5]: from the activity up to the root, each cluster rolls up its
 * measure (RB.1.1a) and completion amount (RB.1.1b), then every activity on the path its
 * objective (RB.1.2) and progress (RB.1.3).
 */
export function overallRollupProcess(ctx: SequencingContext, id: string): void {
  for (const a of pathToRoot(ctx, id)) {
    // An untracked activity keeps no tracking information to roll up (deliveryControls
    // tracked="false"); without this its threshold would judge, and write through its maps, a
    // progress measure it only reads (CTS case CO-10).
    if (!def(ctx, a).deliveryControls.tracked) continue
    if (!isLeaf(ctx, a)) {
      measureRollupProcess(ctx, a)
      completionMeasureRollupProcess(ctx, a)
    }
    objectiveRollupProcess(ctx, a)
    activityProgressRollupProcess(ctx, a)
  }
}

const READS: (keyof ObjectiveMapDef)[] = [
  'readSatisfiedStatus',
  'readNormalizedMeasure',
  'readCompletionStatus',
  'readProgressMeasure',
]

/**
 * Rolls up every activity that reads a global objective written since the last call, so a
 * cluster whose children read shared objectives shows their status before it is ever attempted
 * (ADL's CTS case OB-04 skips such a cluster as completed). Repeats while rollup writes more.
 * A reading leaf rolls up from its parent.
 */
export function rollupGlobalObjectiveReaders(ctx: SequencingContext): void {
  for (let round = 0; ctx.changedGlobals.size > 0 && round < 10; round++) {
    const changed = new Set(ctx.changedGlobals)
    ctx.changedGlobals.clear()
    for (const a of Object.values(ctx.tree.activities)) {
      const reads = a.objectives.some((o) =>
        o.maps.some((m) => changed.has(m.target) && READS.some((r) => m[r])),
      )
      if (!reads) continue
      // A leaf's own status is what its content reported: it is not rolled up again from what
      // it reads, which would write its own threshold's verdict over the writer's (CTS CO-10).
      const from = isLeaf(ctx, a.id) ? a.parent : a.id
      if (from !== null) overallRollupProcess(ctx, from)
    }
  }
}
