import { combine, evaluateCondition, type Tri } from '../rules/conditions.ts'
import { sequencingRulesCheckProcess } from '../rules/sequencing-rules.ts'
import { availableChildren, def, type SequencingContext } from '../state/sequencing-context.ts'
import type { RollupConsideration, RollupRuleDef } from '../tree/activity-tree.types.ts'
import { rollupView } from './rollup-view.ts'

export type RollupAction = RollupRuleDef['action']

/**
 * The rules an activity rolls up with for `action`: its own, or when it has none for the pair
 * (satisfied/notSatisfied, completed/incomplete) the SN book's defaults — not satisfied when
 * all children's status is known, satisfied when all are satisfied; incomplete when all
 * children's progress is known, completed when all are completed.
 */
export function rollupRulesFor(
  ctx: SequencingContext,
  id: string,
  action: RollupAction,
): RollupRuleDef[] {
  const rules = def(ctx, id).rollupRules
  const pair =
    action === 'satisfied' || action === 'notSatisfied'
      ? ['satisfied', 'notSatisfied']
      : ['completed', 'incomplete']
  if (rules.some((r) => pair.includes(r.action))) return rules.filter((r) => r.action === action)
  const condition = {
    satisfied: 'satisfied',
    notSatisfied: 'objectiveStatusKnown',
    completed: 'completed',
    incomplete: 'activityProgressKnown',
  } as const
  return [
    {
      childActivitySet: 'all',
      minimumCount: 0,
      minimumPercent: 0,
      conditionCombination: 'any',
      conditions: [{ condition: condition[action], not: false }],
      action,
    },
  ]
}

/** Check Child for Rollup Subprocess [RB.1.4.2]: whether `child` takes part in rolling up
 * `action` (rollupObjectiveSatisfied / rollupProgressCompletion and the adlseq
 * requiredFor… considerations). */
export function checkChildForRollupSubprocess(
  ctx: SequencingContext,
  child: string,
  action: RollupAction,
): boolean {
  const c = def(ctx, child)
  const objective = action === 'satisfied' || action === 'notSatisfied'
  if (objective ? !c.rollupObjectiveSatisfied : !c.rollupProgressCompletion) return false
  const key = {
    satisfied: 'requiredForSatisfied',
    notSatisfied: 'requiredForNotSatisfied',
    completed: 'requiredForCompleted',
    incomplete: 'requiredForIncomplete',
  } as const
  const consideration: RollupConsideration = c.rollupConsiderations[key[action]]
  const s = ctx.state.activities[child] ?? {}
  switch (consideration) {
    case 'ifNotSuspended':
      return !(s.progress !== true || ((s.count ?? 0) > 0 && s.suspended === true))
    case 'ifAttempted':
      return !(s.progress !== true || (s.count ?? 0) === 0)
    case 'ifNotSkipped':
      return sequencingRulesCheckProcess(ctx, child, 'pre', ['skip']) === null
    case 'always':
      return true
  }
}

/** Evaluate Rollup Conditions Subprocess [RB.1.4.1]. */
export function evaluateRollupConditionsSubprocess(
  ctx: SequencingContext,
  child: string,
  rule: RollupRuleDef,
): Tri {
  const values = rule.conditions.map((c) => evaluateCondition(ctx, child, c, rollupView))
  return values.length === 0 ? undefined : combine(values, rule.conditionCombination)
}

/** Rollup Rule Check Subprocess [RB.1.4]: whether any rule for `action` fires. */
export function rollupRuleCheckSubprocess(
  ctx: SequencingContext,
  id: string,
  action: RollupAction,
): boolean {
  for (const rule of rollupRulesFor(ctx, id, action)) {
    const bag: Tri[] = []
    for (const child of availableChildren(ctx, id)) {
      if (!def(ctx, child).deliveryControls.tracked) continue
      if (!checkChildForRollupSubprocess(ctx, child, action)) continue
      bag.push(evaluateRollupConditionsSubprocess(ctx, child, rule))
    }
    if (childActivitySetMet(rule, bag)) return true
  }
  return false
}

/** Whether the bag of the contributing children's condition values meets the rule's child
 * activity set. An empty bag meets `all` (ADL's CTS case RU-15b rolls a cluster up to completed
 * when no child contributes) and nothing else. */
function childActivitySetMet(rule: RollupRuleDef, bag: Tri[]): boolean {
  if (bag.length === 0) return rule.childActivitySet === 'all'
  const trues = bag.filter((v) => v === true).length
  switch (rule.childActivitySet) {
    case 'all':
      return trues === bag.length
    case 'any':
      return trues > 0
    case 'none':
      return bag.every((v) => v === false)
    case 'atLeastCount':
      return trues >= rule.minimumCount
    case 'atLeastPercent':
      return trues / bag.length >= rule.minimumPercent
  }
}
