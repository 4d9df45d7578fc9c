/**
 * The client LMS's SCORM API, found the standard way (the window, up to 7 parents, then the
 * opener's chain) and called defensively: LMSs answer 'true'/'false' strings or booleans, and
 * some throw.
 */
import { findScormApi } from '../../modules/publish/course-generator/player/api-locator.ts'
import type { LmsVersion } from './protocol.ts'

export interface LmsConnection {
  readonly version: LmsVersion
  initialize(): boolean
  get(element: string): string
  set(element: string, value: string): boolean
  commit(): boolean
  finish(): boolean
}

const METHODS = {
  '1.2': {
    init: 'LMSInitialize',
    get: 'LMSGetValue',
    set: 'LMSSetValue',
    commit: 'LMSCommit',
    finish: 'LMSFinish',
  },
  '2004': {
    init: 'Initialize',
    get: 'GetValue',
    set: 'SetValue',
    commit: 'Commit',
    finish: 'Terminate',
  },
} as const

export function connectLms(win: Window, version: LmsVersion): LmsConnection | null {
  const api = findScormApi(win as never, version) as Record<string, unknown> | null
  if (!api) return null
  const names = METHODS[version]
  const call = (method: keyof typeof names, ...args: string[]): unknown => {
    try {
      const fn = api[names[method]]
      return typeof fn === 'function' ? fn.apply(api, args) : undefined
    } catch {
      return undefined
    }
  }
  const ok = (result: unknown) => result === true || String(result) === 'true'
  return {
    version,
    initialize: () => ok(call('init', '')),
    get(element) {
      const value = call('get', element)
      return value === undefined || value === null ? '' : String(value)
    },
    set: (element, value) => ok(call('set', element, value)),
    commit: () => ok(call('commit', '')),
    finish: () => ok(call('finish', '')),
  }
}
