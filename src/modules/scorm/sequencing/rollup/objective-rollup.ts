import {
  amountOf,
  measureOf,
  primaryObjective,
  setCompleted,
  setSatisfied,
} from '../state/objective-status.ts'
import { def, isActive, isLeaf, type SequencingContext } from '../state/sequencing-context.ts'
import { rollupRuleCheckSubprocess } from './rollup-rules.ts'

/**
 * Objective Rollup Using Measure [RB.1.2a]: with satisfiedByMeasure the primary objective is
 * satisfied when its measure reaches minNormalizedMeasure; unknown without a measure, and while
 * the activity is active unless adlseq:measureSatisfactionIfActive (default true).
 */
export function objectiveRollupUsingMeasure(ctx: SequencingContext, id: string): void {
  const objective = primaryObjective(ctx, id)
  const measure = measureOf(ctx, id)
  if (measure === undefined) {
    setSatisfied(ctx, id, undefined)
    return
  }
  const a = def(ctx, id)
  if (isActive(ctx, id) && !a.rollupConsiderations.measureSatisfactionIfActive) {
    setSatisfied(ctx, id, undefined)
    return
  }
  setSatisfied(ctx, id, measure >= objective.minNormalizedMeasure)
}

/**
 * Objective Rollup Using Rules [RB.1.2b] (with the default rules of RB.1.2c when the activity
 * has none): not satisfied, then satisfied, so a satisfied rule wins; when neither fires the
 * status stays as it was (ADL's CTS case RU-12a depends on it).
 */
export function objectiveRollupUsingRules(ctx: SequencingContext, id: string): void {
  if (rollupRuleCheckSubprocess(ctx, id, 'notSatisfied')) setSatisfied(ctx, id, false)
  if (rollupRuleCheckSubprocess(ctx, id, 'satisfied')) setSatisfied(ctx, id, true)
}

/** Objective Rollup Process [RB.1.2]: by measure when the primary objective is satisfied by
 * measure, else by rules for a cluster; a leaf's status is what its content reported. */
export function objectiveRollupProcess(ctx: SequencingContext, id: string): void {
  if (primaryObjective(ctx, id).satisfiedByMeasure) objectiveRollupUsingMeasure(ctx, id)
  else if (!isLeaf(ctx, id)) objectiveRollupUsingRules(ctx, id)
}

/**
 * Activity Progress Rollup Using Measure [RB.1.3a, 4th Edition]: with completedByMeasure the
 * attempt is completed when its completion amount reaches minProgressMeasure; unknown without
 * an amount.
 */
export function activityProgressRollupUsingMeasure(ctx: SequencingContext, id: string): void {
  const amount = amountOf(ctx, id)
  if (amount === undefined) {
    setCompleted(ctx, id, undefined)
    return
  }
  setCompleted(ctx, id, amount >= def(ctx, id).completionThreshold.minProgressMeasure)
}

/** Activity Progress Rollup Using Rules [RB.1.3b] (default rules RB.1.3c): incomplete, then
 * completed; unchanged when neither fires. */
export function activityProgressRollupUsingRules(ctx: SequencingContext, id: string): void {
  if (rollupRuleCheckSubprocess(ctx, id, 'incomplete')) setCompleted(ctx, id, false)
  if (rollupRuleCheckSubprocess(ctx, id, 'completed')) setCompleted(ctx, id, true)
}

/** Activity Progress Rollup Process [RB.1.3]. */
export function activityProgressRollupProcess(ctx: SequencingContext, id: string): void {
  if (def(ctx, id).completionThreshold.completedByMeasure)
    activityProgressRollupUsingMeasure(ctx, id)
  else if (!isLeaf(ctx, id)) activityProgressRollupUsingRules(ctx, id)
}
