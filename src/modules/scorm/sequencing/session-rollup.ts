import { overallRollupProcess, rollupGlobalObjectiveReaders } from './rollup/overall-rollup.ts'
import { applyScoResults, type ScoResults } from './sco-results.ts'
import { amountOf, completedOf, measureOf, satisfiedOf } from './state/objective-status.ts'
import { type ContextOptions, isLeaf, openContext } from './state/sequencing-context.ts'
import type { GlobalObjectiveMap, TrackingState } from './state/tracking-state.types.ts'
import type { ActivityTree } from './tree/activity-tree.types.ts'

export interface SessionStatus {
  completion_status: 'completed' | 'incomplete' | 'not attempted' | 'unknown'
  success_status: 'passed' | 'failed' | 'unknown'
  score_scaled?: number
  progress_measure?: number
}

export interface SessionRollup extends SessionStatus {
  state: TrackingState
  globals: GlobalObjectiveMap
}

/**
 * The one rollup of a SCORM 2004 session (DESIGN §12): records each SCO's run-time values
 * (keyed by item identifier; unknown ids are ignored) on the tracking state, runs the Overall
 * Rollup Process [RB.1.5] from each, and reads the root activity's rolled-up status.
 */
export function rollupSession(
  tree: ActivityTree,
  state: TrackingState,
  scoResults: Record<string, ScoResults>,
  opts: ContextOptions = {},
): SessionRollup {
  const ctx = openContext(tree, state, opts)
  for (const [id, results] of Object.entries(scoResults)) {
    if (!tree.activities[id] || !isLeaf(ctx, id)) continue
    applyScoResults(ctx, id, results)
    overallRollupProcess(ctx, id)
  }
  rollupGlobalObjectiveReaders(ctx)
  const root = tree.root
  const attempted =
    ctx.state.activities[root]?.progress === true || Object.keys(scoResults).length > 0
  const completed = completedOf(ctx, root)
  const satisfied = satisfiedOf(ctx, root)
  const measure = measureOf(ctx, root)
  const amount = amountOf(ctx, root)
  return {
    completion_status:
      completed === true
        ? 'completed'
        : completed === false
          ? 'incomplete'
          : attempted
            ? 'unknown'
            : 'not attempted',
    success_status: satisfied === true ? 'passed' : satisfied === false ? 'failed' : 'unknown',
    ...(measure === undefined ? {} : { score_scaled: measure }),
    ...(amount === undefined ? {} : { progress_measure: amount }),
    state: ctx.state,
    globals: ctx.globals,
  }
}
