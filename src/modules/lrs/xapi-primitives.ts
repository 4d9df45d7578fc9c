import { AppError } from '../../shared/app-error.ts'

/** The two xAPI versions served; a request's `X-Experience-API-Version` picks one. */
export type XapiVersion = '1.0.3' | '2.0.0'

export type Json = null | boolean | number | string | Array<Json | undefined> | JsonObject
export interface JsonObject {
  [key: string]: Json | undefined
}

/** Throws the 400 every spec MUST violation answers with; `path` names the offending property. */
export function invalid(path: string, message: string): never {
  throw new AppError('validation_failed', `${path}: ${message}`)
}

/** Throws a 400 for the first property not in `allowed` (xAPI objects are closed). */
export function onlyKeys(value: JsonObject, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) invalid(path, `unexpected property "${key}"`)
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value)
}

/** An absolute IRI: a scheme, a colon, then no whitespace (RFC 3987 is looser than we check). */
const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/
export function isIri(value: unknown): value is string {
  return typeof value === 'string' && IRI.test(value) && !/[<>"{}|\\^`]/.test(value)
}

/** RFC 5646 language tag (the common grammar; private-use and grandfathered forms accepted). */
const LANGUAGE_TAG =
  /^(?:(?:[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z0-9]{2,8})+)*(?:-[Xx](?:-[A-Za-z0-9]{1,8})+)?|[Xx](?:-[A-Za-z0-9]{1,8})+|[Ii]-[A-Za-z]{2,8}(?:-[A-Za-z]{2,8})?)$/
export function isLanguageTag(value: unknown): value is string {
  return typeof value === 'string' && LANGUAGE_TAG.test(value)
}

/**
 * ISO 8601 date-time as xAPI uses it: a full date and time, fractions optional, a zone
 * (`Z` or ±hh:mm / ±hhmm / ±hh) required by 2.0 and optional in 1.0.3; `-00:00` is refused.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/
export function parseTimestamp(value: unknown, requireZone: boolean): Date | null {
  if (typeof value !== 'string') return null
  const m = DATE_TIME.exec(value)
  if (!m) return null
  const [y = '', mo = '', d = '', h = '', mi = '', s = '00', frac = '0', zone] = m.slice(1)
  if (!zone && requireZone) return null
  if (zone && /^-00(:?00)?$/.test(zone)) return null
  if (+mo < 1 || +mo > 12 || +d < 1 || +d > 31 || +h > 23 || +mi > 59 || +s > 60) return null
  let offsetMinutes = 0
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'))
  }
  const ms = Math.round(Number(`0.${frac}`) * 1000)
  const utc = Date.UTC(+y, +mo - 1, +d, +h, +mi, Math.min(+s, 59), ms) - offsetMinutes * 60_000
  const date = new Date(utc)
  return Number.isNaN(date.getTime()) ? null : date
}

/** ISO 8601 duration (PnYnMnDTnHnMnS or PnW), fractions allowed on the last component. */
const DURATION =
  /^P(?:\d+(?:[.,]\d+)?W|(?!$)(?:\d+(?:[.,]\d+)?Y)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?D)?(?:T(?=\d)(?:\d+(?:[.,]\d+)?H)?(?:\d+(?:[.,]\d+)?M)?(?:\d+(?:[.,]\d+)?S)?)?)$/
export function isDuration(value: unknown): value is string {
  return typeof value === 'string' && DURATION.test(value)
}

const MAILTO = /^mailto:[^@\s]+@[^@\s]+$/
export function isMailto(value: unknown): value is string {
  return typeof value === 'string' && MAILTO.test(value)
}

/** Canonical JSON: keys sorted, so equal statements compare equal as strings. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * A duration with seconds truncated to hundredths, for comparisons: xAPI 2.0 ignores any
 * precision beyond 0.01 s when comparing statements.
 */
export function comparableDuration(duration: string): string {
  return duration.replace(/(\d+)[.,](\d+)S$/, (_m, whole: string, fraction: string) => {
    const kept = fraction.slice(0, 2).replace(/0+$/, '')
    return kept ? `${whole}.${kept}S` : `${whole}S`
  })
}
