/**
 * The objective values a SCO sees at launch (SCORM 2004 RTE §4.2.17 with the SN book's objective
 * maps): each objective the activity declares with an id becomes a `cmi.objectives.n` entry
 * whose statuses and scores come from the activity's objective progress information, read
 * through its read maps, so a SCO reads what other activities (or courses) wrote to a global
 * objective.
 */
import { readObjective } from './state/objective-status.ts'
import { type ContextOptions, openContext } from './state/sequencing-context.ts'
import type { ObjectiveState, TrackingState } from './state/tracking-state.types.ts'
import type { ActivityTree } from './tree/activity-tree.types.ts'

export interface LaunchObjective {
  id: string
  /** Data-model values under `cmi.objectives.n.` (`success_status`, `score.scaled`,
   * `completion_status`…); an unknown value is left out (the data model's default). */
  values: Record<string, string>
}

/** Objectives of `activityId` for the data model, in manifest order, the primary first. The
 * primary objective the manifest leaves unnamed (`_primary`) has no cmi.objectives entry. */
export function launchObjectives(
  tree: ActivityTree,
  state: TrackingState,
  activityId: string,
  opts: Pick<ContextOptions, 'globals'> = {},
): LaunchObjective[] {
  const activity = tree.activities[activityId]
  if (!activity) return []
  const ctx = openContext(tree, state, opts)
  const out: LaunchObjective[] = []
  for (const o of activity.objectives) {
    if (o.primary && o.id === '_primary') continue
    const own = state.activities[activityId]?.objectives?.[o.id] ?? {}
    // A global objective that is still unknown leaves the activity's own value in place: the
    // SCO sees what it last recorded for that objective (CTS case OB-14b).
    const read = <F extends keyof ObjectiveState>(f: F) =>
      readObjective(ctx, activityId, o, f) ?? own[f]
    const values: Record<string, string> = {}
    const satisfied = read('satisfied')
    if (satisfied !== undefined) values.success_status = satisfied ? 'passed' : 'failed'
    const completed = read('completed')
    if (completed !== undefined) values.completion_status = completed ? 'completed' : 'incomplete'
    const numbers = [
      ['score.scaled', read('measure')],
      ['score.raw', read('raw')],
      ['score.min', read('min')],
      ['score.max', read('max')],
      ['progress_measure', read('progress')],
    ] as const
    for (const [key, v] of numbers) if (v !== undefined) values[key] = String(v)
    out.push({ id: o.id, values })
  }
  return out
}
