import { def, type SequencingContext } from '../state/sequencing-context.ts'

/**
 * Limit Conditions Check Process [UP.1]: true when the activity has used up its attempts or
 * its attemptAbsoluteDurationLimit. Other duration limits are not part of SCORM 2004. The
 * attempt's duration is what the caller reports (ScoResults.attempt_seconds), so the time
 * limit is as exact as that. An attemptLimit of 0 means no limit.
 */
export function limitConditionsCheckProcess(ctx: SequencingContext, id: string): boolean {
  const a = def(ctx, id)
  const s = ctx.state.activities[id] ?? {}
  if (!a.deliveryControls.tracked) return false
  if (s.active || s.suspended) return false
  const limit = a.limitConditions.attemptLimit
  if (limit !== null && limit > 0 && s.progress && (s.count ?? 0) >= limit) return true
  return attemptDurationExceeded(ctx, id)
}

/** Whether the current attempt has run for its attemptAbsoluteDurationLimit (the
 * `timeLimitExceeded` rule condition too). */
export function attemptDurationExceeded(ctx: SequencingContext, id: string): boolean {
  const limit = def(ctx, id).limitConditions.attemptAbsoluteDurationLimit
  const s = ctx.state.activities[id] ?? {}
  return limit !== null && s.progress === true && (s.duration ?? 0) >= limit
}
