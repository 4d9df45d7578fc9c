import type { IncomingHttpHeaders } from 'node:http'

/** The validators of the selected representation. */
export interface Validators {
  /** Strong, quoted: `"…"`. */
  etag: string
  lastModified: Date
}

export type PreconditionOutcome = 'proceed' | 'not_modified' | 'failed'

const ENTITY_TAG = /(?:W\/)?"[^"]*"/g

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

/** Entity tags of an `If-Match`/`If-None-Match` list; `*` comes back as `['*']`. */
function entityTags(value: string): string[] {
  if (value.trim() === '*') return ['*']
  return value.match(ENTITY_TAG) ?? []
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag)

/** HTTP dates have one-second resolution, so Last-Modified is compared in whole seconds. */
function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000)
}

/** An HTTP-date always starts with the day name; asctime() dates carry no zone but mean GMT. */
const HTTP_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /

/** Whole seconds of an HTTP-date (any of the three RFC 9110 §5.6.7 forms); null if invalid. */
function httpDate(value: string | undefined): number | null {
  const text = value?.trim()
  if (text === undefined || !HTTP_DATE.test(text)) return null
  const parsed = Date.parse(text.endsWith('GMT') ? text : `${text} GMT`)
  return Number.isNaN(parsed) ? null : Math.floor(parsed / 1000)
}

/** True when a request carries any header `evaluatePreconditions` reads. */
export function hasPreconditions(headers: IncomingHttpHeaders): boolean {
  return (
    headers['if-match'] !== undefined ||
    headers['if-none-match'] !== undefined ||
    headers['if-modified-since'] !== undefined ||
    headers['if-unmodified-since'] !== undefined
  )
}

/**
 * RFC 9110 §13.2.2 for GET and HEAD, in its order: If-Match (strong comparison), else
 * If-Unmodified-Since — either failing gives 412; then If-None-Match (weak comparison), else
 * If-Modified-Since — a match gives 304. Unparseable dates are ignored, as the RFC requires.
 */
export function evaluatePreconditions(
  headers: IncomingHttpHeaders,
  current: Validators,
): PreconditionOutcome {
  const ifMatch = header(headers, 'if-match')
  if (ifMatch !== undefined) {
    const tags = entityTags(ifMatch)
    const strongMatch = tags.some((tag) => tag === '*' || tag === current.etag)
    if (!strongMatch) return 'failed'
  } else {
    const since = httpDate(header(headers, 'if-unmodified-since'))
    if (since !== null && seconds(current.lastModified) > since) return 'failed'
  }
  const ifNoneMatch = header(headers, 'if-none-match')
  if (ifNoneMatch !== undefined) {
    const tags = entityTags(ifNoneMatch)
    const weakMatch = tags.some((tag) => tag === '*' || opaque(tag) === opaque(current.etag))
    return weakMatch ? 'not_modified' : 'proceed'
  }
  const since = httpDate(header(headers, 'if-modified-since'))
  if (since !== null && seconds(current.lastModified) <= since) return 'not_modified'
  return 'proceed'
}

/**
 * `If-Range` (§13.1.5): the range applies only if the validator still matches — an entity tag
 * by strong comparison (a weak tag never matches), a date only when it equals Last-Modified
 * exactly. Otherwise the whole representation is sent. True when the header is absent.
 */
export function ifRangeAllows(value: string | undefined, current: Validators): boolean {
  if (value === undefined) return true
  const trimmed = value.trim()
  if (trimmed.startsWith('"')) return trimmed === current.etag
  if (trimmed.startsWith('W/')) return false
  const date = httpDate(trimmed)
  return date !== null && date === seconds(current.lastModified)
}
