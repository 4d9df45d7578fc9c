import { AppError } from '../../shared/app-error.ts'

/** S3's limit for presigned URLs; the fs backend keeps the same bound. */
export const MAX_UPLOAD_URL_SECONDS = 7 * 24 * 3600

export interface UploadRequest {
  contentType?: string
  contentLength?: number
  expiresInSeconds: number
}

/** Refuses what could not be signed safely (header injection, negative sizes, odd lifetimes). */
export function assertValidUploadRequest(request: UploadRequest): void {
  const { contentType, contentLength, expiresInSeconds } = request
  if (
    !Number.isSafeInteger(expiresInSeconds) ||
    expiresInSeconds < 1 ||
    expiresInSeconds > MAX_UPLOAD_URL_SECONDS
  ) {
    throw new AppError(
      'invalid_request',
      `expiresInSeconds must be an integer from 1 to ${MAX_UPLOAD_URL_SECONDS}`,
    )
  }
  if (contentLength !== undefined && (!Number.isSafeInteger(contentLength) || contentLength < 0)) {
    throw new AppError('invalid_request', 'contentLength must be a non-negative integer')
  }
  if (contentType !== undefined && !/^[\x21-\x7e][\x20-\x7e]*$/.test(contentType)) {
    throw new AppError('invalid_request', 'contentType must be printable ASCII')
  }
}
