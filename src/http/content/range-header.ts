/**
 * What a `Range` header asks for, reduced to what this server serves (RFC 9110 §14):
 * - `none`: no header, a unit other than `bytes`, a syntax error, or several ranges. All are
 *   answered with the whole representation (200), which §14.2 allows ("a server MAY ignore the
 *   Range header"); multipart/byteranges is not produced — browsers and media players only ask
 *   for one range, and a download tool that asks for several still gets every byte.
 * - `from`: `bytes=a-b` or `bytes=a-` (`end` inclusive, absent = to the end).
 * - `suffix`: `bytes=-n`, the last `n` bytes; needs the size first.
 */
export type RangeRequest =
  | { kind: 'none' }
  | { kind: 'from'; start: number; end?: number }
  | { kind: 'suffix'; length: number }

const NONE: RangeRequest = { kind: 'none' }
const SPEC = /^(\d*)-(\d*)$/

/** Digits as a number, clamped to the largest safe integer (no object is that large). */
function toPosition(digits: string): number {
  const value = Number(digits)
  return Number.isSafeInteger(value) ? value : Number.MAX_SAFE_INTEGER
}

export function parseRangeHeader(header: string | undefined): RangeRequest {
  if (header === undefined) return NONE
  const equals = header.indexOf('=')
  if (equals === -1 || header.slice(0, equals).trim().toLowerCase() !== 'bytes') return NONE
  // A list may carry empty elements (`bytes=0-1,`); they do not count as ranges.
  const specs = header
    .slice(equals + 1)
    .split(',')
    .map((spec) => spec.trim())
    .filter((spec) => spec !== '')
  if (specs.length !== 1) return NONE
  const match = SPEC.exec(specs[0] ?? '')
  if (!match) return NONE
  const [, first = '', last = ''] = match
  if (first === '') {
    return last === '' ? NONE : { kind: 'suffix', length: toPosition(last) }
  }
  const start = toPosition(first)
  if (last === '') return { kind: 'from', start }
  const end = toPosition(last)
  // `last < first` makes the whole header invalid (§14.1.1), hence ignored.
  return end < start ? NONE : { kind: 'from', start, end }
}
