/**
 * What the LMS hands a SCO at launch, and how it becomes the initial data-model values. The
 * server builds a LaunchData from the registration, the manifest and the stored attempt; the
 * player passes it to createRuntime, and the server passes the same one to validateDelta.
 */

import { resolve } from './data-model.ts'
import type { ModelEnv, NavigationProvider, ResolvedOptions, ScormVersion } from './element-spec.ts'

export interface LaunchData {
  readonly learnerId: string
  readonly learnerName: string
  /** Default 'credit'. */
  readonly credit?: 'credit' | 'no-credit'
  /** cmi.mode / cmi.core.lesson_mode. Default 'normal'. */
  readonly mode?: 'normal' | 'browse' | 'review'
  /** Default 'ab-initio'; 'resume' after a suspended session; 1.2 also knows ''. */
  readonly entry?: 'ab-initio' | 'resume' | ''
  /** adlcp:dataFromLMS. */
  readonly launchData?: string
  /** 2004: adlcp:completionThreshold@minProgressMeasure when completedByMeasure is true. */
  readonly completionThreshold?: string
  /** 2004: the primary objective's minNormalizedMeasure when satisfiedByMeasure is true. */
  readonly scaledPassingScore?: string
  /** 1.2: adlcp:masteryscore. */
  readonly masteryScore?: string
  /** 2004 ISO 8601 duration (attemptAbsoluteDurationLimit) or 1.2 CMITimespan (adlcp:maxtimeallowed). */
  readonly maxTimeAllowed?: string
  /** adlcp:timeLimitAction. Default 'continue,no message'. */
  readonly timeLimitAction?: string
  /** Time already spent in this attempt. Default PT0H0M0S / 0000:00:00.00. */
  readonly totalTime?: string
  /** 2004 cmi.comments_from_lms; in 1.2 the comments are joined into cmi.comments_from_lms. */
  readonly commentsFromLms?: ReadonlyArray<{
    comment: string
    location?: string
    timestamp?: string
  }>
  /**
   * 2004 objectives the manifest declares for the activity, in order. Ids missing from `values`
   * are appended; `values` (e.g. `success_status` read from a global objective) override.
   */
  readonly objectives?: ReadonlyArray<{ id: string; values?: Readonly<Record<string, string>> }>
  /** 2004 adl.data buckets mapped to the activity (adlcp:data/adlcp:map). Read/write default true. */
  readonly sharedData?: ReadonlyArray<{
    id: string
    store?: string
    readable?: boolean
    writable?: boolean
  }>
  /** Learner-writable values kept from earlier sessions of this attempt (endSession's `carry`). */
  readonly values?: Readonly<Record<string, string>>
}

export interface DataModelOptions {
  /** cmi.suspend_data limit for SCORM 1.2. Default 4096 (CMIString4096); a tenant may allow 64000. */
  readonly suspendDataLimit12?: number
  /** cmi.suspend_data limit for SCORM 2004. Default 64000 (the SPM). */
  readonly suspendDataLimit2004?: number
  /** Longest value accepted for any element, protecting storage. Default 262144 characters. */
  readonly maxValueLength?: number
  /** Most items per array (interactions, objectives, comments…). Default 1000. */
  readonly maxCollectionItems?: number
  /**
   * Most characters (element names plus values) the model holds; a SetValue that would grow it
   * beyond is refused (2004: 351, 1.2: 101). Default 1 000 000. The server sets it from the
   * attempt's limit (`RUNTIME_DATA_LIMIT_CHARS`) minus what the attempt's other SCOs hold.
   */
  readonly maxTotalChars?: number
  /**
   * Accept any non-empty string up to 4000 characters where SCORM 2004 wants a
   * long_identifier_type (interaction and objective ids), as content such as Storyline 360 writes
   * ids like "SL360 LMS SCORM 2004". Default false: such ids are refused with 406, as the
   * standard and ADL's conformance tests require. A package's `runtime_options` sets it.
   */
  readonly lenientIdentifiers?: boolean
}

/** Default for `DataModelOptions.maxTotalChars`: one attempt's runtime data, 1 000 000 characters. */
export const DEFAULT_MAX_TOTAL_CHARS = 1_000_000

export function resolveOptions(options: DataModelOptions = {}): ResolvedOptions {
  return {
    suspendDataLimit12: options.suspendDataLimit12 ?? 4096,
    suspendDataLimit2004: options.suspendDataLimit2004 ?? 64000,
    maxValueLength: options.maxValueLength ?? 262144,
    maxCollectionItems: options.maxCollectionItems ?? 1000,
    maxTotalChars: options.maxTotalChars ?? DEFAULT_MAX_TOTAL_CHARS,
    lenientIdentifiers: options.lenientIdentifiers === true,
  }
}

export function modelEnv(
  version: ScormVersion,
  launch: LaunchData,
  options?: DataModelOptions,
  navigation?: NavigationProvider,
): ModelEnv {
  const sharedData = (launch.sharedData ?? []).map((d) => ({
    readable: d.readable !== false,
    writable: d.writable !== false,
  }))
  const env = { version, options: resolveOptions(options), sharedData }
  return navigation ? { ...env, navigation } : env
}

/** Elements that belong to one session and never carry over into the next. */
export const SESSION_ONLY = new Set([
  'cmi.exit',
  'cmi.session_time',
  'adl.nav.request',
  'cmi.core.exit',
  'cmi.core.session_time',
])

/** Carried values that the SCO may write (read-only ones always come from the LaunchData). */
export function carried(version: ScormVersion, values: Readonly<Record<string, string>> = {}) {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(values)) {
    const r = resolve(version, key)
    if (r.kind !== 'leaf' || r.spec.access === 'ro' || SESSION_ONLY.has(r.path)) continue
    if (r.path.startsWith('adl.data.')) continue // shared data comes from `sharedData`
    out[r.path] = value
  }
  return out
}

export function initialValues(version: ScormVersion, launch: LaunchData): Record<string, string> {
  return version === '2004' ? initial2004(launch) : initial12(launch)
}

function initial2004(launch: LaunchData): Record<string, string> {
  const v: Record<string, string> = {
    'cmi.learner_id': launch.learnerId,
    'cmi.learner_name': launch.learnerName,
    'cmi.credit': launch.credit ?? 'credit',
    'cmi.mode': launch.mode ?? 'normal',
    'cmi.entry': launch.entry ?? 'ab-initio',
    'cmi.time_limit_action': launch.timeLimitAction ?? 'continue,no message',
    'cmi.total_time': launch.totalTime ?? 'PT0H0M0S',
  }
  optional(v, 'cmi.launch_data', launch.launchData)
  optional(v, 'cmi.completion_threshold', launch.completionThreshold)
  optional(v, 'cmi.scaled_passing_score', launch.scaledPassingScore)
  optional(v, 'cmi.max_time_allowed', launch.maxTimeAllowed)
  ;(launch.commentsFromLms ?? []).forEach((c, i) => {
    v[`cmi.comments_from_lms.${i}.comment`] = c.comment
    optional(v, `cmi.comments_from_lms.${i}.location`, c.location)
    optional(v, `cmi.comments_from_lms.${i}.timestamp`, c.timestamp)
  })
  Object.assign(v, carried('2004', launch.values))
  let count = 0
  while (v[`cmi.objectives.${count}.id`] !== undefined) count++
  for (const objective of launch.objectives ?? []) {
    let index = 0
    while (index < count && v[`cmi.objectives.${index}.id`] !== objective.id) index++
    if (index === count) v[`cmi.objectives.${count++}.id`] = objective.id
    for (const [name, value] of Object.entries(objective.values ?? {})) {
      if (name !== 'id') v[`cmi.objectives.${index}.${name}`] = value
    }
  }
  ;(launch.sharedData ?? []).forEach((d, i) => {
    v[`adl.data.${i}.id`] = d.id
    optional(v, `adl.data.${i}.store`, d.store)
  })
  return v
}

function initial12(launch: LaunchData): Record<string, string> {
  const v: Record<string, string> = {
    'cmi.core.student_id': launch.learnerId,
    'cmi.core.student_name': launch.learnerName,
    'cmi.core.credit': launch.credit ?? 'credit',
    'cmi.core.lesson_mode': launch.mode ?? 'normal',
    'cmi.core.entry': launch.entry ?? 'ab-initio',
    'cmi.core.total_time': launch.totalTime ?? '0000:00:00.00',
    'cmi.student_data.time_limit_action': launch.timeLimitAction ?? 'continue,no message',
  }
  optional(v, 'cmi.launch_data', launch.launchData)
  optional(v, 'cmi.student_data.mastery_score', launch.masteryScore)
  optional(v, 'cmi.student_data.max_time_allowed', launch.maxTimeAllowed)
  if (launch.commentsFromLms?.length) {
    v['cmi.comments_from_lms'] = launch.commentsFromLms.map((c) => c.comment).join('\n')
  }
  return Object.assign(v, carried('1.2', launch.values))
}

function optional(target: Record<string, string>, key: string, value: string | undefined) {
  if (value !== undefined) target[key] = value
}
