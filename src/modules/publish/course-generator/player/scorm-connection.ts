/**
 * One interface over the two SCORM APIs, limited to what a slide course uses. LMSs answer with
 * the strings 'true'/'false' but some return booleans, so both are accepted.
 * Browser-safe: no node: imports.
 */
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

const METHODS = {
  '2004': {
    initialize: 'Initialize',
    terminate: 'Terminate',
    get: 'GetValue',
    set: 'SetValue',
    commit: 'Commit',
  },
  '1.2': {
    initialize: 'LMSInitialize',
    terminate: 'LMSFinish',
    get: 'LMSGetValue',
    set: 'LMSSetValue',
    commit: 'LMSCommit',
  },
} as const

type Method = keyof (typeof METHODS)['2004']

/** Wraps an API object found by findScormApi. A call that throws counts as a refusal. */
export function connectScorm(api: object, version: ScormTarget): ScormConnection {
  const call = (method: Method, ...args: string[]): unknown => {
    try {
      const fn = (api as Record<string, unknown>)[METHODS[version][method]]
      return typeof fn === 'function' ? fn.apply(api, args) : undefined
    } catch {
      return undefined
    }
  }
  const succeeded = (result: unknown) => result === true || String(result) === 'true'
  const names = ELEMENTS[version]
  return {
    version,
    initialize: () => succeeded(call('initialize', '')),
    get(element) {
      const name = names[element]
      if (!name) return ''
      const value = call('get', name)
      return value === undefined || value === null ? '' : String(value)
    },
    set(element, value) {
      const name = names[element]
      return name ? succeeded(call('set', name, value)) : false
    },
    commit: () => succeeded(call('commit', '')),
    terminate: () => succeeded(call('terminate', '')),
  }
}
