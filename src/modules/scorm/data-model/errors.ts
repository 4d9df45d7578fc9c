/**
 * Error codes and strings of the two run-time APIs, exactly as the standards spell them.
 * The data-model engine reports version-neutral failure kinds; each version maps them to its own
 * numeric code, because SCORM 1.2 and 2004 use different numbers for the same situation.
 */
import type { ScormVersion } from './element-spec.ts'

export const ERROR_STRINGS_2004: Readonly<Record<string, string>> = {
  '0': 'No Error',
  '101': 'General Exception',
  '102': 'General Initialization Failure',
  '103': 'Already Initialized',
  '104': 'Content Instance Terminated',
  '111': 'General Termination Failure',
  '112': 'Termination Before Initialization',
  '113': 'Termination After Termination',
  '122': 'Retrieve Data Before Initialization',
  '123': 'Retrieve Data After Termination',
  '132': 'Store Data Before Initialization',
  '133': 'Store Data After Termination',
  '142': 'Commit Before Initialization',
  '143': 'Commit After Termination',
  '201': 'General Argument Error',
  '301': 'General Get Failure',
  '351': 'General Set Failure',
  '391': 'General Commit Failure',
  '401': 'Undefined Data Model Element',
  '402': 'Unimplemented Data Model Element',
  '403': 'Data Model Element Value Not Initialized',
  '404': 'Data Model Element Is Read Only',
  '405': 'Data Model Element Is Write Only',
  '406': 'Data Model Element Type Mismatch',
  '407': 'Data Model Element Value Out Of Range',
  '408': 'Data Model Dependency Not Established',
}

export const ERROR_STRINGS_12: Readonly<Record<string, string>> = {
  '0': 'No error',
  '101': 'General exception',
  '201': 'Invalid argument error',
  '202': 'Element cannot have children',
  '203': 'Element not an array - cannot have count',
  '301': 'Not initialized',
  '401': 'Not implemented error',
  '402': 'Invalid set value, element is a keyword',
  '403': 'Element is read only',
  '404': 'Element is write only',
  '405': 'Incorrect Data Type',
}

/** Why a GetValue/SetValue failed, independent of the version's numbering. */
export type FailureKind =
  | 'undefined-element'
  | 'get-failure'
  | 'set-failure'
  | 'read-only'
  | 'write-only'
  | 'not-initialized'
  | 'type-mismatch'
  | 'out-of-range'
  | 'dependency'
  | 'no-children'
  | 'no-count'
  | 'keyword'
  | 'too-long'
  /** The model holds as much data as it may (`maxTotalChars`). */
  | 'data-full'

export interface Failure {
  readonly kind: FailureKind
  /** Human-readable detail for GetDiagnostic; kept under 255 characters. */
  readonly diagnostic: string
}

export function fail(kind: FailureKind, diagnostic: string): Failure {
  return { kind, diagnostic }
}

const CODES_2004: Readonly<Record<FailureKind, number>> = {
  'undefined-element': 401,
  'get-failure': 301,
  'set-failure': 351,
  'read-only': 404,
  'write-only': 405,
  'not-initialized': 403,
  'type-mismatch': 406,
  'out-of-range': 407,
  dependency: 408,
  'no-children': 301,
  'no-count': 301,
  keyword: 404,
  'too-long': 351,
  'data-full': 351,
}

// SCORM 1.2 has no "not initialized", range or dependency codes: an unset value reads as ""
// (handled by the engine), a bad index is an invalid argument, a bad value is a data type error.
const CODES_12: Readonly<Record<FailureKind, number>> = {
  'undefined-element': 401,
  'get-failure': 201,
  'set-failure': 201,
  'read-only': 403,
  'write-only': 404,
  'not-initialized': 0,
  'type-mismatch': 405,
  'out-of-range': 405,
  dependency: 201,
  'no-children': 202,
  'no-count': 203,
  keyword: 402,
  'too-long': 405,
  'data-full': 101,
}

export function codeFor(version: ScormVersion, kind: FailureKind): number {
  return version === '2004' ? CODES_2004[kind] : CODES_12[kind]
}

/** The standard's text for `code`, or '' for a code the version does not define. */
export function errorString(version: ScormVersion, code: string): string {
  const table = version === '2004' ? ERROR_STRINGS_2004 : ERROR_STRINGS_12
  return Object.hasOwn(table, code) ? (table[code] ?? '') : ''
}

/** Diagnostics are shown to content; SCORM caps them at 255 characters. */
export function clipDiagnostic(text: string): string {
  return text.length > 254 ? `${text.slice(0, 251)}...` : text
}
