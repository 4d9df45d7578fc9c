/**
 * Rule condition evaluation shared by sequencing rules (UP.2.1) and rollup rules (RB.1.4.1), in
 * the book's three-valued logic: a condition on an unknown status is unknown, `not` keeps
 * unknown, and a rule fires only on true.
 */

import { readGlobal } from '../state/global-objectives.ts'
import { completedOf, objectiveDef, readObjective } from '../state/objective-status.ts'
import { def, type SequencingContext } from '../state/sequencing-context.ts'
import type { RuleConditionName } from '../tree/activity-tree.types.ts'
import { attemptDurationExceeded } from './limit-conditions.ts'

/** true, false, or undefined for unknown. */
export type Tri = boolean | undefined

export interface ConditionInput {
  condition: RuleConditionName
  not: boolean
  referencedObjective?: string | null
  measureThreshold?: number
}

/** Evaluates one condition for `id`; `view` lets rollup hide stale information. */
export function evaluateCondition(
  ctx: SequencingContext,
  id: string,
  c: ConditionInput,
  view: StatusView = liveView,
): Tri {
  const value = rawCondition(ctx, id, c, view)
  return c.not && value !== undefined ? !value : value
}

/** How a condition reads an activity's statuses (rollup substitutes a stale-aware one). */
export interface StatusView {
  satisfied(ctx: SequencingContext, id: string, objective: string | null): boolean | undefined
  measure(ctx: SequencingContext, id: string, objective: string | null): number | undefined
  completed(ctx: SequencingContext, id: string): boolean | undefined
}

export const liveView: StatusView = {
  satisfied(ctx, id, objective) {
    const o = objectiveDef(ctx, id, objective)
    return o ? readObjective(ctx, id, o, 'satisfied') : undefined
  },
  measure(ctx, id, objective) {
    const o = objectiveDef(ctx, id, objective)
    return o ? readObjective(ctx, id, o, 'measure') : undefined
  },
  completed: completedOf,
}

function rawCondition(
  ctx: SequencingContext,
  id: string,
  c: ConditionInput,
  view: StatusView,
): Tri {
  const objective = c.referencedObjective ?? null
  const s = ctx.state.activities[id] ?? {}
  // An untracked activity has no tracking information to test (ADL's CTS case CO-05b).
  if (!def(ctx, id).deliveryControls.tracked && c.condition !== 'always') return undefined
  switch (c.condition) {
    case 'satisfied':
      return view.satisfied(ctx, id, objective)
    case 'objectiveStatusKnown':
      return view.satisfied(ctx, id, objective) !== undefined
    case 'objectiveMeasureKnown':
      return view.measure(ctx, id, objective) !== undefined
    case 'objectiveMeasureGreaterThan': {
      const m = view.measure(ctx, id, objective)
      return m === undefined ? undefined : m > (c.measureThreshold ?? 0)
    }
    case 'objectiveMeasureLessThan': {
      const m = view.measure(ctx, id, objective)
      return m === undefined ? undefined : m < (c.measureThreshold ?? 0)
    }
    case 'completed':
      return objectiveCompletion(ctx, id, objective) ?? view.completed(ctx, id)
    case 'activityProgressKnown':
      // Progress is known after an attempt, or when a global objective supplies it, which
      // counts even before this activity's first attempt (ADL's CTS case CO-06).
      if ((objectiveCompletion(ctx, id, objective) ?? view.completed(ctx, id)) === undefined)
        return false
      return s.progress === true || globalCompletion(ctx, id, objective) !== undefined
    case 'attempted':
      return s.progress === true && (s.count ?? 0) > 0
    case 'attemptLimitExceeded': {
      const limit = def(ctx, id).limitConditions.attemptLimit
      return limit !== null && limit > 0 && s.progress === true && (s.count ?? 0) >= limit
    }
    case 'timeLimitExceeded':
      return attemptDurationExceeded(ctx, id)
    case 'outsideAvailableTimeRange':
      // No begin/end time limits are carried by SCORM 2004 manifests.
      return false
    case 'always':
      return true
    default:
      return undefined
  }
}

/** A completion condition naming a non-primary objective reads that objective's completion
 * status (4th Edition objective data, shared through adlseq maps; ADL's CTS case CO-06). */
function objectiveCompletion(ctx: SequencingContext, id: string, objective: string | null): Tri {
  const o = objective === null ? undefined : objectiveDef(ctx, id, objective)
  if (!o || o.primary) return undefined
  return readObjective(ctx, id, o, 'completed')
}

function globalCompletion(ctx: SequencingContext, id: string, objective: string | null): Tri {
  const o = objectiveDef(ctx, id, objective)
  return o ? readGlobal(ctx, o, 'completed') : undefined
}

/** Combines condition values: `all` is AND, `any` is OR, in three-valued logic. */
export function combine(values: Tri[], combination: 'all' | 'any'): Tri {
  if (combination === 'all') {
    if (values.includes(false)) return false
    return values.includes(undefined) ? undefined : true
  }
  if (values.includes(true)) return true
  return values.includes(undefined) ? undefined : false
}
