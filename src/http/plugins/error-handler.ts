import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ERROR_STATUS, type ErrorCode, isAppError } from '../../shared/app-error.ts'
import { IdempotentReplay } from './idempotency.ts'
import { lingerThenClose, registerLingeringClose } from './lingering-close.ts'
import { redactUrl } from './log-redaction.ts'

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

/** An error's answer: its status and body, and the message to log it with (5xx only). */
export interface ErrorAnswer {
  status: number
  body: ReturnType<typeof body>
  /** Set when the error is ours to investigate: log it at `error` with this message. */
  logMessage?: string
}

/**
 * The one mapping of a failure to its answer, for the error handler and for the paths that
 * answer without the framework (the runtime's commit fast path). `requestId` is quoted in a 500.
 */
export function errorAnswer(
  err: Partial<FastifyError> & { message: string },
  requestId: string,
): ErrorAnswer {
  if (isAppError(err)) {
    const answer = { status: err.status, body: body(err.code, err.message, err.details) }
    return err.status >= 500 ? { ...answer, logMessage: err.message } : answer
  }
  if (err.validation) {
    const details = err.validation.map((v) => ({
      path: `${err.validationContext ?? ''}${v.instancePath || ''}`,
      message: v.message,
    }))
    return { status: 400, body: body('validation_failed', err.message, details) }
  }
  const mapped = err.code ? FASTIFY_CODES[err.code] : undefined
  if (mapped) return { status: ERROR_STATUS[mapped], body: body(mapped, err.message) }
  if (err.statusCode === 429) {
    return { status: 429, body: body('rate_limited', err.message) }
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return { status: err.statusCode, body: body('invalid_request', err.message) }
  }
  return {
    status: 500,
    body: body('internal_error', `Internal error; quote request id ${requestId}`),
    logMessage: 'unhandled error',
  }
}

/** One error handler: every failure leaves as `{"error": {code, message, details?}}`. */
export function registerErrorHandling(app: FastifyInstance): void {
  registerLingeringClose(app)
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof IdempotentReplay) {
      return reply
        .status(err.status)
        .header('idempotent-replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(err.body)
    }
    const answer = errorAnswer(err, request.id)
    if (answer.logMessage !== undefined) request.log.error({ err }, answer.logMessage)
    return reply.status(answer.status).send(answer.body)
  })
  // JSON only; the path is echoed with its tokens redacted.
  app.setNotFoundHandler((request, reply) => {
    reply
      .status(404)
      .send(
        body(
          'not_found',
          `No route ${request.method} ${redactUrl(request.url.split('?')[0] ?? '')}`,
        ),
      )
  })
}

/**
 * Fastify's `frameworkErrors`: errors raised before routing (a malformed percent-escape, an
 * over-long path parameter) get the same error body as everything else, and never echo the URL,
 * which may carry a token.
 */
export function frameworkErrorHandler(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400
  void reply.code(status).send(body('invalid_request', 'Malformed request URL'))
}

/** Node's HTTP parser errors, answered before Fastify sees a request. */
const PARSER_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    code: 'header_too_large',
    message: 'The request line or headers are too large',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'request_timeout',
    message: 'The request took too long to arrive',
  },
}

/**
 * Fastify's `clientErrorHandler` (Node's 'clientError'): a request the HTTP parser refuses (a tab
 * or NUL in the path, a 70 KB request line, a broken chunk) still gets the error body and a 4xx,
 * then the connection is closed, as the stream can no longer be trusted.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || socket.writableEnded) return
  const known = PARSER_ERRORS[err.code ?? ''] ?? {
    code: 'invalid_request',
    message: 'The HTTP request is malformed',
  }
  const status = ERROR_STATUS[known.code]
  const payload = JSON.stringify(body(known.code, known.message))
  // Lingering, not destroy(): closing with unread bytes (the rest of a 70 KB request line) would
  // reset the connection and lose the answer.
  lingerThenClose(
    socket,
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(payload)}\r\nX-Content-Type-Options: nosniff\r\n` +
      `Connection: close\r\n\r\n${payload}`,
  )
}
