/**
 * Global objective maps (SN §4.2.1.4 and the 4th Edition adlseq:objectives extensions): an
 * activity objective reads its status through its read maps and writes through its write maps.
 * These are pure functions over the map object in the context; the caller stores that object
 * (per learner, or per learner and attempt when objectivesGlobalToSystem is false).
 */
import type { ActivityTree, ObjectiveDef, ObjectiveMapDef } from '../tree/activity-tree.types.ts'
import type { SequencingContext } from './sequencing-context.ts'
import type { GlobalObjective, ObjectiveState } from './tracking-state.types.ts'

export type ObjectiveField = keyof ObjectiveState

const READ: Record<ObjectiveField, keyof ObjectiveMapDef> = {
  satisfied: 'readSatisfiedStatus',
  measure: 'readNormalizedMeasure',
  raw: 'readRawScore',
  min: 'readMinScore',
  max: 'readMaxScore',
  completed: 'readCompletionStatus',
  progress: 'readProgressMeasure',
}

const WRITE: Record<ObjectiveField, keyof ObjectiveMapDef> = {
  satisfied: 'writeSatisfiedStatus',
  measure: 'writeNormalizedMeasure',
  raw: 'writeRawScore',
  min: 'writeMinScore',
  max: 'writeMaxScore',
  completed: 'writeCompletionStatus',
  progress: 'writeProgressMeasure',
}

/** Whether one of the objective's maps reads `field` from a global objective. */
export function readsGlobal(objective: ObjectiveDef, field: ObjectiveField): boolean {
  return objective.maps.some((m) => m[READ[field]])
}

/** The value a global objective holds for `field`, read through the first map of `objective`
 * that reads it and knows a value; undefined when no map reads a known value. */
export function readGlobal<F extends ObjectiveField>(
  ctx: SequencingContext,
  objective: ObjectiveDef,
  field: F,
): ObjectiveState[F] | undefined {
  for (const map of objective.maps) {
    if (!map[READ[field]]) continue
    const value = ctx.globals[map.target]?.[field]
    if (value !== undefined) return value
  }
  return undefined
}

/** Writes `value` (undefined = unknown) to every global objective `objective` writes `field`
 * to. */
export function writeGlobal<F extends ObjectiveField>(
  ctx: SequencingContext,
  objective: ObjectiveDef,
  field: F,
  value: ObjectiveState[F] | undefined,
): void {
  for (const map of objective.maps) {
    if (!map[WRITE[field]]) continue
    const current: GlobalObjective = { ...(ctx.globals[map.target] ?? {}) }
    if (current[field] === value) continue
    if (value === undefined) delete current[field]
    else current[field] = value
    ctx.globals[map.target] = current
    ctx.changedGlobals.add(map.target)
  }
}

/** Ids of the global objectives a tree refers to (for the caller to load them). */
export function globalObjectiveIds(tree: ActivityTree): string[] {
  const ids = new Set<string>()
  for (const a of Object.values(tree.activities))
    for (const o of a.objectives) for (const m of o.maps) ids.add(m.target)
  return [...ids]
}
