import type { FastifyError, FastifyInstance } from 'fastify'
import { ERROR_STATUS, type ErrorCode, isAppError } from '../../shared/app-error.ts'

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_FILES_LIMIT: 'payload_too_large',
  FST_PARTS_LIMIT: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_request',
}

function body(code: string, message: string, details?: unknown) {
  return { error: details === undefined ? { code, message } : { code, message, details } }
}

/** One error handler: every failure leaves as `{"error": {code, message, details?}}`. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (isAppError(err)) {
      if (err.status >= 500) request.log.error({ err }, err.message)
      return reply.status(err.status).send(body(err.code, err.message, err.details))
    }
    if (err.validation) {
      const details = err.validation.map((v) => ({
        path: `${err.validationContext ?? ''}${v.instancePath || ''}`,
        message: v.message,
      }))
      return reply.status(400).send(body('validation_failed', err.message, details))
    }
    const mapped = err.code ? FASTIFY_CODES[err.code] : undefined
    if (mapped) return reply.status(ERROR_STATUS[mapped]).send(body(mapped, err.message))
    if (err.statusCode === 429) {
      return reply.status(429).send(body('rate_limited', err.message))
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.status(err.statusCode).send(body('invalid_request', err.message))
    }
    request.log.error({ err }, 'unhandled error')
    return reply
      .status(500)
      .send(body('internal_error', `Internal error; quote request id ${request.id}`))
  })
  app.setNotFoundHandler((request, reply) => {
    reply
      .status(404)
      .send(body('not_found', `No route ${request.method} ${request.url.split('?')[0]}`))
  })
}
