/**
 * Runtime → sequencer: what a SCO's run-time data means for its activity's tracking
 * information (SCORM 2004 RTE §4.2 and SN §4.2): cmi.completion_status, success_status,
 * score.*, progress_measure and cmi.objectives.n.* go to the activity's attempt progress and
 * objective information (and on through write maps); cmi.exit = suspend suspends the activity.
 */
import {
  primaryObjective,
  setAmount,
  setCompleted,
  writeObjective,
} from './state/objective-status.ts'
import { def, type SequencingContext, st } from './state/sequencing-context.ts'
import type { ObjectiveState } from './state/tracking-state.types.ts'
import type { ObjectiveDef } from './tree/activity-tree.types.ts'
import { normalizeObjectiveId } from './tree/sequencing-defaults.ts'

export interface ObjectiveResult {
  /** cmi.objectives.n.id */
  id: string
  success_status?: string
  completion_status?: string
  score_scaled?: number | null
  score_raw?: number | null
  score_min?: number | null
  score_max?: number | null
  progress_measure?: number | null
}

/**
 * A SCO's run-time values. An absent field leaves the tracking information as it is; `unknown`
 * (or null for numbers) makes it unknown.
 */
export interface ScoResults {
  completion_status?: string
  success_status?: string
  score_scaled?: number | null
  score_raw?: number | null
  score_min?: number | null
  score_max?: number | null
  progress_measure?: number | null
  objectives?: ObjectiveResult[]
  /** cmi.exit; `suspend` suspends the activity's attempt. */
  exit?: string
  /** Duration of the attempt so far in seconds (for attemptAbsoluteDurationLimit). */
  attempt_seconds?: number
}

const SATISFIED: Record<string, boolean | undefined> = { passed: true, failed: false }
const COMPLETED: Record<string, boolean | undefined> = {
  completed: true,
  incomplete: false,
  'not attempted': false,
}

type ObjectiveValues = Omit<ObjectiveResult, 'id'>

function writeValues(
  ctx: SequencingContext,
  id: string,
  objective: ObjectiveDef,
  v: ObjectiveValues,
): void {
  const set = <F extends keyof ObjectiveState>(field: F, value: ObjectiveState[F] | undefined) =>
    writeObjective(ctx, id, objective, field, value)
  if (v.success_status !== undefined) set('satisfied', SATISFIED[v.success_status])
  if (v.score_scaled !== undefined) set('measure', v.score_scaled ?? undefined)
  if (v.score_raw !== undefined) set('raw', v.score_raw ?? undefined)
  if (v.score_min !== undefined) set('min', v.score_min ?? undefined)
  if (v.score_max !== undefined) set('max', v.score_max ?? undefined)
  if (v.completion_status !== undefined) set('completed', COMPLETED[v.completion_status])
  if (v.progress_measure !== undefined) set('progress', v.progress_measure ?? undefined)
}

/**
 * Records a SCO's results on its activity. The primary objective takes cmi.success_status and
 * cmi.score.*; a cmi.objectives entry with the primary objective's id fills what cmi.* leaves
 * out.
 */
export function applyScoResults(ctx: SequencingContext, id: string, r: ScoResults): void {
  const a = def(ctx, id)
  if (!a.deliveryControls.tracked) return
  const primary = primaryObjective(ctx, id)
  let primaryEntry: ObjectiveResult | undefined
  for (const o of r.objectives ?? []) {
    const objective = a.objectives.find((x) => x.id === normalizeObjectiveId(o.id))
    if (!objective) continue
    writeValues(ctx, id, objective, o)
    if (objective.primary) primaryEntry = o
  }
  const own: ObjectiveValues = { ...r }
  if (primaryEntry) {
    // The entry speaks for the primary objective where cmi.* is silent; a cmi.* value the SCO
    // set wins, even `unknown` (ADL's CTS case CO-13a).
    for (const key of Object.keys(primaryEntry) as (keyof ObjectiveValues)[]) {
      const v = own[key]
      if (v === undefined && primaryEntry[key] !== undefined)
        Object.assign(own, { [key]: primaryEntry[key] })
    }
  }
  writeValues(ctx, id, primary, {
    ...own,
    completion_status: undefined,
    progress_measure: undefined,
  })
  if (own.completion_status !== undefined) setCompleted(ctx, id, COMPLETED[own.completion_status])
  if (own.progress_measure !== undefined) setAmount(ctx, id, own.progress_measure ?? undefined)
  const s = st(ctx, id)
  // Content that reports has been attempted, even when no delivery was recorded (rollupSession).
  if (!s.progress) {
    s.progress = true
    s.count = Math.max(s.count ?? 0, 1)
  }
  if (own.completion_status !== undefined) s.reportedCompletion = true
  if (own.success_status !== undefined) s.reportedSuccess = true
  if (r.exit !== undefined) {
    if (r.exit === 'suspend') s.suspended = true
    else delete s.suspended
  }
  if (r.attempt_seconds !== undefined) s.duration = r.attempt_seconds
}
