import { AppError } from '../../shared/app-error.ts'

export interface RequestedRange {
  start: number
  end?: number
}

/** Throws `invalid_request` for ranges no HTTP `Range` header could mean. */
export function assertValidRange(range: RequestedRange): void {
  const { start, end } = range
  const bad =
    !Number.isSafeInteger(start) ||
    start < 0 ||
    (end !== undefined && (!Number.isSafeInteger(end) || end < start))
  if (bad) throw new AppError('invalid_request', `Invalid byte range ${JSON.stringify(range)}`)
}

/**
 * The inclusive range actually served for an object of `size` bytes: `end` is clamped to the
 * last byte; null when nothing can be served (`start >= size`, which includes empty objects).
 */
export function clampRange(
  range: RequestedRange,
  size: number,
): { start: number; end: number } | null {
  if (range.start >= size) return null
  const last = size - 1
  return { start: range.start, end: Math.min(range.end ?? last, last) }
}
