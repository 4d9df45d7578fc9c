import { def, type SequencingContext } from '../state/sequencing-context.ts'
import type { SequencingRuleDef } from '../tree/activity-tree.types.ts'
import { combine, evaluateCondition } from './conditions.ts'
import { limitConditionsCheckProcess } from './limit-conditions.ts'

export type RuleSet = 'pre' | 'exit' | 'post'

/** Sequencing Rule Check Subprocess [UP.2.1]: whether the rule's conditions are met (unknown
 * counts as not met). */
export function sequencingRuleCheckSubprocess(
  ctx: SequencingContext,
  id: string,
  rule: SequencingRuleDef,
): boolean {
  const values = rule.conditions.map((c) => evaluateCondition(ctx, id, c))
  if (values.length === 0) return false
  return combine(values, rule.conditionCombination) === true
}

/**
 * Sequencing Rules Check Process [UP.2]: the action of the first rule of `set` whose action is
 * one of `actions` and whose conditions hold; null when none does.
 */
export function sequencingRulesCheckProcess(
  ctx: SequencingContext,
  id: string,
  set: RuleSet,
  actions: readonly string[],
): string | null {
  const a = def(ctx, id)
  const rules =
    set === 'pre'
      ? a.preConditionRules
      : set === 'exit'
        ? a.exitConditionRules
        : a.postConditionRules
  for (const rule of rules) {
    if (!actions.includes(rule.action)) continue
    if (sequencingRuleCheckSubprocess(ctx, id, rule)) return rule.action
  }
  return null
}

/** Check Activity Process [UP.5]: true when the activity is disabled or has hit its limits. */
export function checkActivityProcess(ctx: SequencingContext, id: string): boolean {
  if (sequencingRulesCheckProcess(ctx, id, 'pre', ['disabled']) !== null) return true
  return limitConditionsCheckProcess(ctx, id)
}
