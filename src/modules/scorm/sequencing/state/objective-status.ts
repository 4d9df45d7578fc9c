/**
 * Reading and writing an activity's objective and attempt progress information, with the
 * global objective maps applied: a read map supplies the value when the global one is known,
 * every write goes on to the write maps.
 */
import type { ObjectiveDef } from '../tree/activity-tree.types.ts'
import { readGlobal, readsGlobal, writeGlobal } from './global-objectives.ts'
import { def, type SequencingContext, st } from './sequencing-context.ts'
import type { ObjectiveState } from './tracking-state.types.ts'

export function primaryObjective(ctx: SequencingContext, id: string): ObjectiveDef {
  const o = def(ctx, id).objectives[0]
  if (!o) throw new Error(`Activity ${id} has no primary objective`)
  return o
}

export function objectiveDef(
  ctx: SequencingContext,
  id: string,
  objectiveId: string | null,
): ObjectiveDef | undefined {
  if (objectiveId === null) return primaryObjective(ctx, id)
  return def(ctx, id).objectives.find((o) => o.id === objectiveId)
}

function local(ctx: SequencingContext, id: string, objectiveId: string): ObjectiveState {
  const s = st(ctx, id)
  s.objectives ??= {}
  let o = s.objectives[objectiveId]
  if (!o) {
    o = {}
    s.objectives[objectiveId] = o
  }
  return o
}

/** An objective field as sequencing sees it: through a read map the global objective's value.
 * A satisfied status or measure read that way stays unknown while the global one is (as in
 * ADL's LMS, whose global records exist from registration on: CTS case CM-13 depends on it);
 * the 4th Edition fields fall back to the activity's own value (CTS case CO-09). */
export function readObjective<F extends keyof ObjectiveState>(
  ctx: SequencingContext,
  id: string,
  objective: ObjectiveDef,
  field: F,
): ObjectiveState[F] | undefined {
  if (field === 'satisfied' && objective.satisfiedByMeasure) {
    return satisfiedByMeasure(ctx, id, objective) as ObjectiveState[F] | undefined
  }
  const local = ctx.state.activities[id]?.objectives?.[objective.id]?.[field]
  if (!readsGlobal(objective, field)) return local
  const global = readGlobal(ctx, objective, field)
  return global !== undefined || field === 'satisfied' || field === 'measure' ? global : local
}

/** An objective satisfied by measure is satisfied when its measure (read maps included)
 * reaches minNormalizedMeasure; unknown without a measure, or while the activity is active
 * unless measureSatisfactionIfActive (RB.1.2a). */
function satisfiedByMeasure(
  ctx: SequencingContext,
  id: string,
  objective: ObjectiveDef,
): boolean | undefined {
  const measure = readObjective(ctx, id, objective, 'measure')
  if (measure === undefined) return undefined
  const active = ctx.state.activities[id]?.active === true
  if (active && !def(ctx, id).rollupConsiderations.measureSatisfactionIfActive) return undefined
  return measure >= objective.minNormalizedMeasure
}

/** -0 (a SCO's Number("-0"), or a rollup's product) as 0: stored JSON has no -0, and a state
 * read back from storage must behave and compare as the one that was stored. */
function plain<T>(value: T): T {
  return (Object.is(value, -0) ? 0 : value) as T
}

export function writeObjective<F extends keyof ObjectiveState>(
  ctx: SequencingContext,
  id: string,
  objective: ObjectiveDef,
  field: F,
  raw: ObjectiveState[F] | undefined,
): void {
  const value = plain(raw)
  const o = local(ctx, id, objective.id)
  if (value === undefined) delete o[field]
  else o[field] = value
  writeGlobal(ctx, objective, field, value)
  // A satisfied-by-measure objective's status follows its measure, on to its write maps too
  // (ADL's CTS case OB-13c reads it from the global objective).
  if (field === 'measure' && objective.satisfiedByMeasure) {
    const satisfied = satisfiedByMeasure(ctx, id, objective)
    if (satisfied === undefined) delete o.satisfied
    else o.satisfied = satisfied
    writeGlobal(ctx, objective, 'satisfied', satisfied)
  }
}

/** Primary objective satisfied status; undefined = Objective Progress Status false. */
export function satisfiedOf(ctx: SequencingContext, id: string): boolean | undefined {
  return readObjective(ctx, id, primaryObjective(ctx, id), 'satisfied')
}

/** Primary objective normalized measure; undefined = Objective Measure Status false. */
export function measureOf(ctx: SequencingContext, id: string): number | undefined {
  return readObjective(ctx, id, primaryObjective(ctx, id), 'measure')
}

/** Attempt Completion Status (undefined = Attempt Progress Status false). With
 * completedByMeasure it follows the completion amount (RB.1.3a); otherwise a 4th Edition
 * readCompletionStatus map on the primary objective supplies it when the global is known. */
export function completedOf(ctx: SequencingContext, id: string): boolean | undefined {
  const threshold = def(ctx, id).completionThreshold
  if (threshold.completedByMeasure) {
    const amount = amountOf(ctx, id)
    return amount === undefined ? undefined : amount >= threshold.minProgressMeasure
  }
  return (
    readGlobal(ctx, primaryObjective(ctx, id), 'completed') ?? ctx.state.activities[id]?.completed
  )
}

/** Attempt Completion Amount (undefined = its status false), read like completedOf. */
export function amountOf(ctx: SequencingContext, id: string): number | undefined {
  return readGlobal(ctx, primaryObjective(ctx, id), 'progress') ?? ctx.state.activities[id]?.amount
}

export function setSatisfied(ctx: SequencingContext, id: string, v: boolean | undefined): void {
  writeObjective(ctx, id, primaryObjective(ctx, id), 'satisfied', v)
}

export function setMeasure(ctx: SequencingContext, id: string, v: number | undefined): void {
  writeObjective(ctx, id, primaryObjective(ctx, id), 'measure', v)
}

export function setCompleted(ctx: SequencingContext, id: string, v: boolean | undefined): void {
  const s = st(ctx, id)
  if (v === undefined) delete s.completed
  else s.completed = v
  writeGlobal(ctx, primaryObjective(ctx, id), 'completed', v)
}

export function setAmount(ctx: SequencingContext, id: string, raw: number | undefined): void {
  const v = plain(raw)
  const s = st(ctx, id)
  if (v === undefined) delete s.amount
  else s.amount = v
  writeGlobal(ctx, primaryObjective(ctx, id), 'progress', v)
  // Completed by measure: the completion status follows the amount, on to the write maps too
  // (CTS case CO-10 reads it through a global objective in the next activity).
  const threshold = def(ctx, id).completionThreshold
  if (threshold.completedByMeasure && v !== undefined)
    setCompleted(ctx, id, v >= threshold.minProgressMeasure)
}

/** Whether `child`'s information counts for its parent's current attempt: with
 * useCurrentAttemptObjectiveInfo / …ProgressInfo (default true) only data recorded since the
 * parent's attempt began does. */
export function isCurrentForParent(
  ctx: SequencingContext,
  child: string,
  kind: 'objective' | 'progress',
): boolean {
  const parent = def(ctx, child).parent
  if (parent === null) return true
  const mode = def(ctx, parent).controlMode
  const use =
    kind === 'objective' ? mode.useCurrentAttemptObjectiveInfo : mode.useCurrentAttemptProgressInfo
  if (!use) return true
  return (ctx.state.activities[child]?.since ?? 0) >= (ctx.state.activities[parent]?.since ?? 0)
}
