/**
 * Calls into an LMS's SCORM API object (window.API for 1.2, window.API_1484_11 for 2004) the
 * defensive way both our browser callers need: LMSs answer the strings 'true'/'false' or
 * booleans, some lack a method and some throw, so a missing method or a throw yields undefined.
 * Browser-safe: no node: imports. Shared by the dispatch wrapper's LMS connection and the
 * generated course's player.
 */

export type ScormApiVersion = '1.2' | '2004'

/** The five calls a caller makes, by their 2004 meaning. */
export type ScormApiMethod = 'initialize' | 'get' | 'set' | 'commit' | 'terminate'

const METHODS: Readonly<Record<ScormApiVersion, Readonly<Record<ScormApiMethod, string>>>> = {
  '1.2': {
    initialize: 'LMSInitialize',
    get: 'LMSGetValue',
    set: 'LMSSetValue',
    commit: 'LMSCommit',
    terminate: 'LMSFinish',
  },
  '2004': {
    initialize: 'Initialize',
    get: 'GetValue',
    set: 'SetValue',
    commit: 'Commit',
    terminate: 'Terminate',
  },
}

export type ScormApiCall = (method: ScormApiMethod, ...args: string[]) => unknown

/** A caller of `api`'s methods under the names its version uses; undefined when a call fails. */
export function scormApiCaller(api: object, version: ScormApiVersion): ScormApiCall {
  const names = METHODS[version]
  return (method, ...args) => {
    try {
      const fn = (api as Record<string, unknown>)[names[method]]
      return typeof fn === 'function' ? fn.apply(api, args) : undefined
    } catch {
      return undefined
    }
  }
}

/** A SCORM boolean answer: true or the string 'true'. */
export function scormSucceeded(result: unknown): boolean {
  return result === true || String(result) === 'true'
}

/** A GetValue answer as a string: '' for undefined or null. */
export function scormValue(result: unknown): string {
  return result === undefined || result === null ? '' : String(result)
}
