/**
 * The LMS-side status rules of SCORM 2004 4th Edition (RTE 4.2.4.1 and 4.2.22.1): when the LMS
 * knows a completion threshold or a scaled passing score, the SCO's own status is overridden by
 * comparing the measure with it, and reads "unknown" while the measure is missing.
 */
import { isReal } from './value-types.ts'

export function evaluateCompletionStatus(
  stored: string | undefined,
  progressMeasure: string | undefined,
  completionThreshold: string | undefined,
): string {
  if (completionThreshold !== undefined && isReal(completionThreshold)) {
    if (progressMeasure === undefined || !isReal(progressMeasure)) return 'unknown'
    return Number(progressMeasure) >= Number(completionThreshold) ? 'completed' : 'incomplete'
  }
  return stored ?? 'unknown'
}

export function evaluateSuccessStatus(
  stored: string | undefined,
  scaledScore: string | undefined,
  scaledPassingScore: string | undefined,
): string {
  if (scaledPassingScore !== undefined && isReal(scaledPassingScore)) {
    if (scaledScore === undefined || !isReal(scaledScore)) return 'unknown'
    return Number(scaledScore) >= Number(scaledPassingScore) ? 'passed' : 'failed'
  }
  return stored ?? 'unknown'
}

/**
 * SCORM 1.2 (RTE 3.4.4, cmi.core.lesson_status): with credit and a mastery score, a raw score
 * decides passed/failed; a SCO that never set a status is "completed" ("browsed" in browse mode);
 * review mode changes nothing.
 */
export function finalLessonStatus12(values: {
  status: string | undefined
  rawScore: string | undefined
  masteryScore: string | undefined
  credit: string | undefined
  mode: string | undefined
}): string {
  const { status, rawScore, masteryScore, credit, mode } = values
  if (mode === 'review') return status ?? 'not attempted' // review never changes tracking
  if (
    credit !== 'no-credit' &&
    mode !== 'browse' &&
    masteryScore !== undefined &&
    masteryScore !== '' &&
    rawScore !== undefined &&
    isReal(rawScore) &&
    isReal(masteryScore)
  ) {
    return Number(rawScore) >= Number(masteryScore) ? 'passed' : 'failed'
  }
  if (status === undefined || status === 'not attempted') {
    return mode === 'browse' ? 'browsed' : 'completed'
  }
  return status
}
