/**
 * One interface over the two SCORM APIs, limited to what a slide course uses. LMSs answer with
 * the strings 'true'/'false' but some return booleans, so both are accepted.
 * Browser-safe: no node: imports.
 */
import { scormApiCaller, scormSucceeded, scormValue } from '../../../scorm/scorm-api-call.ts'
import type { ScormTarget } from '../course.types.ts'

export type TrackedElement =
  | 'entry'
  | 'location'
  | 'suspendData'
  | 'completion'
  | 'exit'
  | 'sessionTime'
  | 'progress'

export interface ScormConnection {
  readonly version: ScormTarget
  initialize(): boolean
  /** '' when the element is unknown to this version or the LMS refuses it. */
  get(element: TrackedElement): string
  /** false when the element does not exist in this version or the LMS refuses the value. */
  set(element: TrackedElement, value: string): boolean
  commit(): boolean
  terminate(): boolean
}

const ELEMENTS: Readonly<Record<ScormTarget, Readonly<Record<TrackedElement, string | null>>>> = {
  '2004': {
    entry: 'cmi.entry',
    location: 'cmi.location',
    suspendData: 'cmi.suspend_data',
    completion: 'cmi.completion_status',
    exit: 'cmi.exit',
    sessionTime: 'cmi.session_time',
    progress: 'cmi.progress_measure',
  },
  '1.2': {
    entry: 'cmi.core.entry',
    location: 'cmi.core.lesson_location',
    suspendData: 'cmi.suspend_data',
    completion: 'cmi.core.lesson_status',
    exit: 'cmi.core.exit',
    sessionTime: 'cmi.core.session_time',
    progress: null,
  },
}

/** Wraps an API object found by findScormApi. A call that throws counts as a refusal. */
export function connectScorm(api: object, version: ScormTarget): ScormConnection {
  const call = scormApiCaller(api, version)
  const names = ELEMENTS[version]
  return {
    version,
    initialize: () => scormSucceeded(call('initialize', '')),
    get(element) {
      const name = names[element]
      return name ? scormValue(call('get', name)) : ''
    },
    set(element, value) {
      const name = names[element]
      return name ? scormSucceeded(call('set', name, value)) : false
    },
    commit: () => scormSucceeded(call('commit', '')),
    terminate: () => scormSucceeded(call('terminate', '')),
  }
}
