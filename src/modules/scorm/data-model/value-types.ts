/**
 * Checks for the data types of both versions. Each check returns a Failure or undefined; the
 * caller maps the failure kind to the version's error code (406/407 in 2004, 405 in 1.2).
 */
import { isIsoDuration, parseTimespan } from './durations.ts'
import { type Failure, fail } from './errors.ts'
import { isLanguageCode } from './language-codes.ts'

export type Check = (value: string) => Failure | undefined

const REAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/

export function isReal(value: string): boolean {
  return REAL.test(value)
}

/** real(10,7) or CMIDecimal with an optional inclusive range. */
export function real(min?: number, max?: number): Check {
  return (value) => {
    if (!REAL.test(value)) return fail('type-mismatch', `"${short(value)}" is not a real number`)
    const n = Number(value)
    if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
      return fail('out-of-range', `${short(value)} is outside ${range(min, max)}`)
    }
    return undefined
  }
}

/** SCORM 1.2 CMISInteger with an inclusive range. */
export function integer(min: number, max: number): Check {
  return (value) => {
    if (!/^[-+]?\d+$/.test(value))
      return fail('type-mismatch', `"${short(value)}" is not an integer`)
    const n = Number(value)
    if (n < min || n > max) return fail('out-of-range', `${value} is outside ${range(min, max)}`)
    return undefined
  }
}

export function vocabulary(values: readonly string[]): Check {
  const allowed = new Set(values)
  return (value) =>
    allowed.has(value)
      ? undefined
      : fail('type-mismatch', `"${short(value)}" is not one of: ${values.join(', ')}`)
}

/** Any string; `max` is an enforced limit (not SCORM's SPM, which is only a minimum to support). */
export function characterString(max?: number): Check {
  return (value) =>
    max !== undefined && value.length > max
      ? fail('too-long', `value has ${value.length} characters; the limit is ${max}`)
      : undefined
}

/** localized_string_type: an optional leading {lang=<language_type>} then any text. */
export const localizedString: Check = (value) => {
  const parsed = splitLangPrefix(value)
  if (parsed && !isLanguageCode(parsed.lang)) {
    return fail('type-mismatch', `"${short(parsed.lang)}" is not a valid language code`)
  }
  return undefined
}

/** Splits a leading `{lang=xx}`; undefined when the value does not start with one. */
export function splitLangPrefix(value: string): { lang: string; text: string } | undefined {
  if (!value.startsWith('{lang=')) return undefined
  const end = value.indexOf('}')
  if (end < 0) return undefined
  return { lang: value.slice(6, end), text: value.slice(end + 1) }
}

export function language(allowEmpty: boolean): Check {
  return (value) => {
    if (value === '' && allowEmpty) return undefined
    return isLanguageCode(value)
      ? undefined
      : fail('type-mismatch', `"${short(value)}" is not a valid language code`)
  }
}

/**
 * long/short_identifier_type: a URI (RFC 3986 characters, a valid scheme when one is present,
 * RFC 2141 syntax for URNs). Non-ASCII letters are allowed, as IRIs allow them.
 */
export const identifier: Check = (value) =>
  isUriLike(value)
    ? undefined
    : fail('type-mismatch', `"${short(value)}" is not a valid identifier (URI)`)

const URI_FORBIDDEN = /[\s\p{Cc}<>"{}|\\^`[\]]/u

export function isUriLike(value: string): boolean {
  if (value === '' || URI_FORBIDDEN.test(value)) return false
  if (/%(?![0-9A-Fa-f]{2})/.test(value)) return false
  if (value.indexOf('#') !== value.lastIndexOf('#')) return false
  const colon = value.indexOf(':')
  const firstDelimiter = value.search(/[/?#]/)
  if (colon < 0 || (firstDelimiter >= 0 && firstDelimiter < colon)) return true // relative reference
  const scheme = value.slice(0, colon)
  const rest = value.slice(colon + 1)
  if (!/^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme) || rest === '') return false
  if (scheme.toLowerCase() === 'urn') return /^[A-Za-z0-9][A-Za-z0-9-]{0,31}:\S+$/.test(rest)
  return true
}

/** SCORM 1.2 CMIIdentifier: 1-255 printable characters without white space. */
export const cmiIdentifier: Check = (value) =>
  value.length > 0 && value.length <= 255 && !/[\s\p{Cc}]/u.test(value)
    ? undefined
    : fail('type-mismatch', `"${short(value)}" is not a CMIIdentifier`)

export const timeInterval: Check = (value) =>
  isIsoDuration(value)
    ? undefined
    : fail('type-mismatch', `"${short(value)}" is not an ISO 8601 duration such as PT1H5M`)

export const timespan: Check = (value) =>
  parseTimespan(value) !== undefined
    ? undefined
    : fail('type-mismatch', `"${short(value)}" is not a CMITimespan (HHHH:MM:SS.SS)`)

export const cmiTime: Check = (value) =>
  /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,2})?$/.test(value)
    ? undefined
    : fail('type-mismatch', `"${short(value)}" is not a CMITime (HH:MM:SS.SS)`)

// time(second,10,0): YYYY[-MM[-DD[Thh[:mm[:ss[.s[TZD]]]]]]], years 1970-2038.
const TIMESTAMP =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:\.\d{1,2}(?:Z|[+-](\d{2})(?::(\d{2}))?)?)?)?)?)?)?)?$/

export const timestamp: Check = (value) =>
  isTimestamp(value)
    ? undefined
    : fail(
        'type-mismatch',
        `"${short(value)}" is not an ISO 8601 timestamp (YYYY-MM-DDThh:mm:ss.s)`,
      )

export function isTimestamp(value: string): boolean {
  const m = TIMESTAMP.exec(value)
  if (!m) return false
  const [, y, mo, d, h, mi, s, tzh, tzm] = m.map((part) =>
    part === undefined ? undefined : Number(part),
  )
  if (y === undefined || y < 1970 || y > 2038) return false
  if (mo !== undefined && (mo < 1 || mo > 12)) return false
  if (d !== undefined && mo !== undefined && (d < 1 || d > daysInMonth(y, mo))) return false
  if (h !== undefined && h > 23) return false
  if ((mi !== undefined && mi > 59) || (s !== undefined && s > 59)) return false
  if ((tzh !== undefined && tzh > 23) || (tzm !== undefined && tzm > 59)) return false
  return true
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

function range(min?: number, max?: number): string {
  return `[${min ?? '-∞'}, ${max ?? '∞'}]`
}

/** Keeps quoted values in diagnostics short. */
export function short(value: string): string {
  return value.length > 40 ? `${value.slice(0, 37)}...` : value
}
