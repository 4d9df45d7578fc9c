/**
 * How rollup reads a child's statuses: information recorded before the parent's current attempt
 * began is unknown when the parent uses current-attempt information only (the
 * useCurrentAttemptObjectiveInfo / useCurrentAttemptProgressInfo controls, default true). Values
 * read through global objective maps are always current.
 */
import type { StatusView } from '../rules/conditions.ts'
import { readGlobal } from '../state/global-objectives.ts'
import {
  amountOf,
  completedOf,
  isCurrentForParent,
  objectiveDef,
  primaryObjective,
  readObjective,
} from '../state/objective-status.ts'
import type { SequencingContext } from '../state/sequencing-context.ts'
import type { ObjectiveState } from '../state/tracking-state.types.ts'

function objectiveField<F extends 'satisfied' | 'measure'>(
  ctx: SequencingContext,
  id: string,
  objective: string | null,
  field: F,
): ObjectiveState[F] | undefined {
  const o = objectiveDef(ctx, id, objective)
  if (!o) return undefined
  if (isCurrentForParent(ctx, id, 'objective')) return readObjective(ctx, id, o, field)
  return readGlobal(ctx, o, field)
}

export const rollupView: StatusView = {
  satisfied: (ctx, id, objective) => objectiveField(ctx, id, objective, 'satisfied'),
  measure: (ctx, id, objective) => objectiveField(ctx, id, objective, 'measure'),
  completed(ctx, id) {
    if (isCurrentForParent(ctx, id, 'progress')) return completedOf(ctx, id)
    return readGlobal(ctx, primaryObjective(ctx, id), 'completed')
  },
}

export function rollupAmount(ctx: SequencingContext, id: string): number | undefined {
  if (isCurrentForParent(ctx, id, 'progress')) return amountOf(ctx, id)
  return readGlobal(ctx, primaryObjective(ctx, id), 'progress')
}
