import { AppError } from '../../shared/app-error.ts'

/** Socket-level failures: the store did not answer at all (or dropped the connection). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
])

/** SDK and S3 names for "try again later", whatever the transport said. */
const UNAVAILABLE_NAMES = new Set([
  'TimeoutError',
  'RequestTimeout',
  'ServiceUnavailable',
  'SlowDown',
  'InternalError',
])

interface ErrorLike {
  code?: unknown
  name?: unknown
  cause?: unknown
  errors?: unknown
  $metadata?: { httpStatusCode?: number }
}

/**
 * Whether `err` says the object store is unreachable or overloaded (rather than that the request
 * was wrong): a network error anywhere in its cause chain (AggregateError included, as Node's
 * connect attempts report), a timeout, or a 5xx answer other than 501.
 */
export function isStoreUnavailable(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== 'object' || depth > 4) return false
  const e = err as ErrorLike
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true
  if (typeof e.name === 'string' && UNAVAILABLE_NAMES.has(e.name)) return true
  const status = e.$metadata?.httpStatusCode
  // 501 is a store that lacks a feature, not one that is down.
  if (typeof status === 'number' && status >= 500 && status !== 501) return true
  if (Array.isArray(e.errors) && e.errors.some((inner) => isStoreUnavailable(inner, depth + 1))) {
    return true
  }
  return isStoreUnavailable(e.cause, depth + 1)
}

/**
 * `storage_unavailable` (503 with Retry-After) for an unreachable store, anything else unchanged.
 * Backends rethrow through this so no caller has to know a transport's error shapes.
 */
export function asStorageError(err: unknown): unknown {
  if (!isStoreUnavailable(err)) return err
  const unavailable = new AppError(
    'storage_unavailable',
    'The object store cannot be reached; try again shortly',
  )
  unavailable.cause = err
  return unavailable
}
