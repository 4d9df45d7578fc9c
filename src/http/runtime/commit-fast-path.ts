import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyBaseLogger, FastifyError } from 'fastify'
import type { Metrics } from '../../infra/metrics/index.ts'
import type { FastPath } from '../fast-path.ts'
import { errorAnswer } from '../plugins/error-handler.ts'
import { CONTENT_DEFAULT_NOSNIFF } from '../plugins/security-headers.ts'
import { RETRY_AFTER_SECONDS } from '../routes/health/retry-after.ts'

/** Parses a body as the route's parser does, throwing the error that parser reports. */
export type BodyParse = (text: string) => unknown

export interface CommitFastPathDeps {
  /** The route's own answer (`commitAnswer`), counting the commit's outcome. */
  commit(
    sessionId: string,
    authorization: string | undefined,
    body: unknown,
    host: string,
  ): Promise<unknown>
  /** `application/json`: Fastify's own JSON parser, with the app's poisoning options. */
  parseJson: BodyParse
  /** `text/plain` (sendBeacon): the route's parser. */
  parseText: BodyParse
  /** The route's body limit; a longer `Content-Length` is left to Fastify (413). */
  bodyLimit: number
  metrics: Metrics
  /** The app's logger: 5xx are logged as the error handler logs them. */
  log: FastifyBaseLogger
}

/** The route a fast answer is recorded under: the one Fastify would have matched. */
const ROUTE = '/runtime/sessions/:sessionId/commits'
const PREFIX = '/runtime/sessions/'
const SUFFIX = '/commits'
/** Ids as `newId` makes them; anything else (percent-escapes, say) goes to Fastify's router. */
const SESSION_ID = /^[A-Za-z0-9_-]+$/
/** Fastify's `maxParamLength` (app.ts). */
const MAX_PARAM_LENGTH = 2048
const JSON_TYPES = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
])
const TEXT_TYPES = new Set(['text/plain', 'text/plain; charset=utf-8', 'text/plain;charset=utf-8'])
const CONTENT_TYPE = 'application/json; charset=utf-8'
const [NOSNIFF_NAME, NOSNIFF_VALUE] = CONTENT_DEFAULT_NOSNIFF

/**
 * Runtime commits answered without the framework. The player commits every few seconds per
 * learner; per commit the framework's request and reply objects, routing, body parser, hooks and
 * serialisation cost about as much as the commit's own work (issue 15.4, bench/README.md
 * "bench:runtime").
 *
 * It takes a request only when Fastify would send it, unchanged, to the commit route with the
 * content app's hooks (app.ts `buildContentApp`: request metrics, the error handler, the
 * `nosniff` default, Retry-After on 503, lingering close): `POST` to exactly
 * `/runtime/sessions/{id}/commits` (no query, an id of `[A-Za-z0-9_-]`), `Content-Type`
 * `application/json` or `text/plain` (sendBeacon), a `Content-Length` from 1 byte to the body
 * limit, no `Transfer-Encoding`, a `Host` and no `X-Forwarded-Host`, and the server not closing.
 * The route logs at `warn` (`COMMIT_LOG_LEVEL`), so Fastify would log no request line either.
 * Everything else — an empty or oversized body, another media type, a chunked body — returns
 * false untouched.
 *
 * What it takes it answers as the route does, every error included (a test compares both): the
 * same parsers, the same `commitAnswer`, the same error mapping (`errorAnswer`), the same headers
 * in the same order, `Connection: close` after a body that does not parse, and the same metrics.
 * A hook added to the content app that must see commits has to be mirrored here or turn this off
 * (`runtimeRoutes`' `fastPath: false`).
 */
export class CommitFastPath implements FastPath {
  readonly #deps: CommitFastPathDeps
  #open = true

  constructor(deps: CommitFastPathDeps) {
    this.#deps = deps
  }

  /** From now on every request goes to Fastify (it answers 503 while closing). */
  close(): void {
    this.#open = false
  }

  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url
    if (
      !this.#open ||
      req.method !== 'POST' ||
      url === undefined ||
      !url.startsWith(PREFIX) ||
      !url.endsWith(SUFFIX)
    ) {
      return false
    }
    const sessionId = url.slice(PREFIX.length, url.length - SUFFIX.length)
    if (sessionId.length > MAX_PARAM_LENGTH || !SESSION_ID.test(sessionId)) return false
    const h = req.headers
    const type = h['content-type']?.toLowerCase()
    if (type === undefined) return false
    const parse = JSON_TYPES.has(type)
      ? this.#deps.parseJson
      : TEXT_TYPES.has(type)
        ? this.#deps.parseText
        : undefined
    const length = Number(h['content-length'])
    if (
      parse === undefined ||
      !(length > 0 && length <= this.#deps.bodyLimit) ||
      h['transfer-encoding'] !== undefined ||
      h.host === undefined ||
      h['x-forwarded-host'] !== undefined
    ) {
      return false
    }
    const started = performance.now()
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
    })
    req.on('end', () => {
      const text =
        chunks.length === 1
          ? (chunks[0] as Buffer).toString('utf8')
          : Buffer.concat(chunks).toString('utf8')
      void this.#answer(req, res, sessionId, parse, text, started)
    })
    // As Fastify's body reader: a broken request body is a 400 (to a socket mostly gone).
    req.on('error', (err: Error & { statusCode?: number }) => {
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400
      this.#fail(req, res, err, started, true)
    })
    return true
  }

  async #answer(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string,
    parse: BodyParse,
    text: string,
    started: number,
  ): Promise<void> {
    let body: unknown
    try {
      body = parse(text)
    } catch (err) {
      // Fastify closes the connection after a body its parser refused.
      this.#fail(req, res, err, started, true)
      return
    }
    let payload: string
    try {
      const h = req.headers
      payload = JSON.stringify(
        await this.#deps.commit(sessionId, h.authorization, body, h.host as string),
      )
    } catch (err) {
      this.#fail(req, res, err, started, false)
      return
    }
    this.#send(res, 200, payload, started, false)
  }

  #fail(
    req: IncomingMessage,
    res: ServerResponse,
    err: unknown,
    started: number,
    close: boolean,
  ): void {
    const error = (err instanceof Error ? err : new Error(String(err))) as FastifyError
    // Fastify's request id (app.ts): the client's X-Request-Id, else a new UUID.
    const header = req.headers['x-request-id']
    const requestId = typeof header === 'string' && header !== '' ? header : randomUUID()
    const answer = errorAnswer(error, requestId)
    if (answer.logMessage !== undefined) {
      this.#deps.log.child({ reqId: requestId }).error({ err: error }, answer.logMessage)
    }
    this.#send(res, answer.status, JSON.stringify(answer.body), started, close)
  }

  /** Headers as Fastify writes them: its own, then the content app's onSend hooks' in order. */
  #send(res: ServerResponse, status: number, payload: string, started: number, close: boolean) {
    const headers: string[] = close ? ['connection', 'close'] : []
    headers.push('content-type', CONTENT_TYPE, NOSNIFF_NAME, NOSNIFF_VALUE)
    if (status === 503) headers.push('retry-after', String(RETRY_AFTER_SECONDS))
    headers.push('content-length', String(Buffer.byteLength(payload)))
    res.writeHead(status, headers)
    res.end(payload)
    this.#deps.metrics.httpRequest({
      origin: 'content',
      route: ROUTE,
      method: 'POST',
      statusCode: status,
      seconds: (performance.now() - started) / 1000,
    })
  }
}
