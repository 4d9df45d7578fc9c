/**
 * The one error type domain code throws. `code` is a closed union so clients can rely on it;
 * the HTTP layer maps it to a status with `statusFor`.
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_request: 400,
  invalid_package: 422,
  unsupported_content: 422,
  unprocessable: 422,
  invalid_webhook_url: 422,
  unauthorized: 401,
  forbidden: 403,
  /** A state-changing dashboard call without its session's X-CSRF-Token. */
  csrf_failed: 403,
  launch_refused: 403,
  tenant_mismatch: 403,
  mode_mismatch: 403,
  not_found: 404,
  package_not_found: 404,
  version_not_found: 404,
  upload_not_found: 404,
  session_not_found: 404,
  webhook_not_found: 404,
  delivery_not_found: 404,
  dispatch_not_found: 404,
  conflict: 409,
  idempotency_conflict: 409,
  invalid_state: 409,
  sequence_gap: 409,
  /** A runtime commit claims to reach too far past the last applied one (docs/runtime-protocol.md). */
  sequence_jump: 409,
  /** The SCORM 2004 sequencer refused a navigation request (details.exception: the SN book's
   * code, docs/runtime-protocol.md §6). */
  navigation_refused: 409,
  request_timeout: 408,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  header_too_large: 431,
  quota_exceeded: 429,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  /** The object store cannot be reached; answered with Retry-After. */
  storage_unavailable: 503,
  /** The database cannot be reached; answered with Retry-After. */
  database_unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export class AppError extends Error {
  readonly code: ErrorCode
  readonly details: unknown
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message)
    this.name = 'AppError'
    this.code = code
    this.details = details
  }
  get status(): number {
    return ERROR_STATUS[this.code]
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError
}
