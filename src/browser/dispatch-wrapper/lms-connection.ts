/**
 * The client LMS's SCORM API, found the standard way (the window, up to 7 parents, then the
 * opener's chain) and called defensively: LMSs answer 'true'/'false' strings or booleans, and
 * some throw.
 */
import { findScormApi } from '../../modules/publish/course-generator/player/api-locator.ts'
import { scormApiCaller, scormSucceeded, scormValue } from '../../modules/scorm/scorm-api-call.ts'
import type { LmsVersion } from './protocol.ts'

export interface LmsConnection {
  readonly version: LmsVersion
  initialize(): boolean
  get(element: string): string
  set(element: string, value: string): boolean
  commit(): boolean
  finish(): boolean
}

export function connectLms(win: Window, version: LmsVersion): LmsConnection | null {
  const api = findScormApi(win as never, version) as object | null
  if (!api) return null
  const call = scormApiCaller(api, version)
  return {
    version,
    initialize: () => scormSucceeded(call('initialize', '')),
    get: (element) => scormValue(call('get', element)),
    set: (element, value) => scormSucceeded(call('set', element, value)),
    commit: () => scormSucceeded(call('commit', '')),
    finish: () => scormSucceeded(call('terminate', '')),
  }
}
