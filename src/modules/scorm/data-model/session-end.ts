/**
 * What the LMS does when a SCO's session ends (Terminate/LMSFinish, or the window closing): decide
 * whether the attempt is suspended or over, add the session time to the attempt's total, apply
 * the status rules, and keep the values the next launch resumes from.
 */
import { sumIsoDurations, sumTimespans } from './durations.ts'
import type { ScormVersion } from './element-spec.ts'
import { carried } from './launch-data.ts'
import type { DataModelState } from './runtime.ts'
import {
  evaluateCompletionStatus,
  evaluateSuccessStatus,
  finalLessonStatus12,
} from './status-rules.ts'

export interface SessionOutcome {
  /** The next launch resumes this attempt (cmi.entry = 'resume'); otherwise the attempt is over. */
  readonly suspended: boolean
  /** Time spent in the attempt including this session (ISO 8601 for 2004, CMITimespan for 1.2). */
  readonly totalTime: string
  readonly completionStatus: string
  readonly successStatus: string
  /** 1.2 only: the final cmi.core.lesson_status. */
  readonly lessonStatus?: string
  readonly score: {
    readonly scaled?: string
    readonly raw?: string
    readonly min?: string
    readonly max?: string
  }
  /** LaunchData.values for the resumed launch; empty when the attempt is over. */
  readonly carry: Record<string, string>
  /** The final values with evaluated statuses and total time, for recording. */
  readonly values: Record<string, string>
}

/** Requests that end the attempt even when the SCO asked to suspend. */
const ENDING_REQUESTS = new Set(['exitAll', 'abandon', 'abandonAll'])

export function endSession(
  version: ScormVersion,
  state: DataModelState,
  opts: { navRequest?: string } = {},
): SessionOutcome {
  return version === '2004' ? end2004(state.values, opts.navRequest) : end12(state.values)
}

function end2004(v: Readonly<Record<string, string>>, navRequest?: string): SessionOutcome {
  const request = navRequest ?? v['adl.nav.request'] ?? '_none_'
  const suspended =
    !ENDING_REQUESTS.has(request) && (v['cmi.exit'] === 'suspend' || request === 'suspendAll')
  const totalTime = sumIsoDurations(
    v['cmi.total_time'] ?? 'PT0H0M0S',
    v['cmi.session_time'] ?? 'PT0H0M0S',
  )
  const completionStatus = evaluateCompletionStatus(
    v['cmi.completion_status'],
    v['cmi.progress_measure'],
    v['cmi.completion_threshold'],
  )
  const successStatus = evaluateSuccessStatus(
    v['cmi.success_status'],
    v['cmi.score.scaled'],
    v['cmi.scaled_passing_score'],
  )
  const values = {
    ...v,
    'cmi.completion_status': completionStatus,
    'cmi.success_status': successStatus,
    'cmi.total_time': totalTime,
  }
  return {
    suspended,
    totalTime,
    completionStatus,
    successStatus,
    score: pick(v, {
      scaled: 'cmi.score.scaled',
      raw: 'cmi.score.raw',
      min: 'cmi.score.min',
      max: 'cmi.score.max',
    }),
    carry: suspended ? carried('2004', v) : {},
    values,
  }
}

function end12(v: Readonly<Record<string, string>>): SessionOutcome {
  const suspended = v['cmi.core.exit'] === 'suspend'
  const totalTime = sumTimespans(v['cmi.core.total_time'] ?? '', v['cmi.core.session_time'] ?? '')
  const stored = v['cmi.core.lesson_status']
  const finalStatus = finalLessonStatus12({
    status: stored,
    rawScore: v['cmi.core.score.raw'] || undefined,
    masteryScore: v['cmi.student_data.mastery_score'],
    credit: v['cmi.core.credit'],
    mode: v['cmi.core.lesson_mode'],
  })
  // A suspended SCO keeps "not attempted": the learner has not finished with it yet.
  const lessonStatus =
    suspended && (stored ?? 'not attempted') === 'not attempted' ? 'not attempted' : finalStatus
  const values = { ...v, 'cmi.core.lesson_status': lessonStatus, 'cmi.core.total_time': totalTime }
  return {
    suspended,
    totalTime,
    lessonStatus,
    completionStatus: COMPLETION_12[lessonStatus] ?? 'unknown',
    successStatus:
      lessonStatus === 'passed' || lessonStatus === 'failed' ? lessonStatus : 'unknown',
    score: pick(v, {
      raw: 'cmi.core.score.raw',
      min: 'cmi.core.score.min',
      max: 'cmi.core.score.max',
    }),
    carry: suspended ? carried('1.2', values) : {},
    values,
  }
}

const COMPLETION_12: Record<string, string> = {
  passed: 'completed',
  failed: 'completed',
  completed: 'completed',
  incomplete: 'incomplete',
  browsed: 'incomplete',
  'not attempted': 'not attempted',
}

function pick(v: Readonly<Record<string, string>>, keys: Record<string, string>) {
  const out: Record<string, string> = {}
  for (const [name, element] of Object.entries(keys)) {
    const value = v[element]
    if (value !== undefined && value !== '') out[name] = value
  }
  return out
}
