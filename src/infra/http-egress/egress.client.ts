import type { IncomingHttpHeaders } from 'node:http'
import type { SecureContextOptions } from 'node:tls'
import { Agent } from 'undici'
import { discardBody, readCapped } from './body.reader.ts'
import { HttpEgressError, toEgressError } from './egress.error.ts'
import { createPinnedConnector } from './pinned.connector.ts'
import type { EgressPolicyOptions, RegistrationCheck } from './url.guard.ts'
import { bareHost, buildPolicy, checkUrlForRegistration, parseEgressUrl } from './url.guard.ts'

export interface HttpEgressClientOptions extends EgressPolicyOptions {
  /** Trust roots that REPLACE Node's bundled CAs; tests pass the test CA. Default: Node's bundle. */
  ca?: SecureContextOptions['ca']
  /** Default total time for one request: connect, headers and body. Default: 30 000 ms. */
  timeoutMs?: number
  /** Budget for TCP connect + TLS handshake of one socket. Default: 10 000 ms. */
  connectTimeoutMs?: number
  /** Default response body cap in bytes. Default: 65 536. */
  maxBodyBytes?: number
  /** Sockets kept per origin. Default: 128. */
  connectionsPerOrigin?: number
  /** Idle keep-alive socket lifetime unless the server says less. Default: 4 000 ms. */
  keepAliveTimeoutMs?: number
  /** Sent when the request sets none. Default: `'Courseport/1 (+webhooks)'`. */
  userAgent?: string
  /** Called with the host and pinned address of every new socket (logs, tests). */
  onConnect?: (host: string, address: string) => void
}

export type EgressMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface EgressRequest {
  url: string | URL
  /** Default: `'GET'`. */
  method?: EgressMethod
  /** A `host` header is refused: the host always comes from the URL. */
  headers?: Readonly<Record<string, string>>
  body?: string | Uint8Array
  /** Total time for this request. Default: the client's `timeoutMs`. */
  timeoutMs?: number
  /** Body cap in bytes. Default: the client's `maxBodyBytes`. */
  maxBodyBytes?: number
  /**
   * What to do with a body over the cap: `'error'` throws `too_large` (e.g. image fetching);
   * `'truncate'` keeps the first `maxBodyBytes` and sets `truncated` (e.g. response excerpts of
   * webhook deliveries). Default: `'error'`.
   */
  onOversize?: 'error' | 'truncate'
  /**
   * Media types accepted for a 2xx response, e.g. `['image/png', 'image/jpeg']` or `['image/*']`;
   * anything else (or none) throws `unsupported_content_type` before the body is read. Non-2xx
   * responses are returned unchecked so the caller sees the status. Default: any type.
   */
  acceptContentTypes?: readonly string[]
  /** Cancels the request; rejects with `aborted`. */
  signal?: AbortSignal
}

export interface EgressResponse {
  /** Any status, 3xx included: redirects are never followed and `location` is left as sent. */
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
  /** True when `onOversize: 'truncate'` cut the body. */
  truncated: boolean
}

export interface HttpEgressClient {
  /**
   * Sends one request. Rejects with HttpEgressError; TypeError only for caller bugs (a `host`
   * header, an unsupported method).
   */
  request(req: EgressRequest): Promise<EgressResponse>
  /** `checkUrlForRegistration` under this client's policy. */
  checkUrl(url: string | URL): Promise<RegistrationCheck>
  /** Closes pooled sockets; waits for requests in flight. */
  close(): Promise<void>
}

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])

function mediaTypeAccepted(header: string | string[] | undefined, accepted: readonly string[]) {
  const raw = Array.isArray(header) ? header[0] : header
  const type = raw?.split(';')[0]?.trim().toLowerCase()
  if (!type) return false
  return accepted.some((a) => {
    const want = a.toLowerCase()
    return want.endsWith('/*') ? type.startsWith(want.slice(0, -1)) : type === want
  })
}

// Long on purpose: a factory whose closure (pools, connector, limits) is shared by the methods it
// returns.
/**
 * The SSRF-safe outbound HTTP client. One instance per process (or per purpose) so sockets are
 * pooled per origin; every new socket is resolved, checked and pinned by the connector.
 */
export function createHttpEgressClient(options: HttpEgressClientOptions = {}): HttpEgressClient {
  const policy = buildPolicy(options)
  const defaultTimeout = options.timeoutMs ?? 30_000
  const defaultMaxBytes = options.maxBodyBytes ?? 65_536
  const userAgent = options.userAgent ?? 'Courseport/1 (+webhooks)'
  const agent = new Agent({
    connect: createPinnedConnector({
      policy,
      ca: options.ca,
      connectTimeoutMs: options.connectTimeoutMs,
      onConnect: options.onConnect,
    }),
    connections: options.connectionsPerOrigin ?? 128,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    allowH2: false,
  })

  async function request(req: EgressRequest): Promise<EgressResponse> {
    const url = parseEgressUrl(req.url, policy)
    const host = bareHost(url)
    const method = req.method ?? 'GET'
    if (!METHODS.has(method)) throw new TypeError(`Unsupported method ${method}`)
    const headers: Record<string, string> = { 'user-agent': userAgent }
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      if (name.toLowerCase() === 'host') throw new TypeError('The host header comes from the URL')
      headers[name.toLowerCase()] = value
    }
    const timeoutMs = req.timeoutMs ?? defaultTimeout
    const maxBytes = req.maxBodyBytes ?? defaultMaxBytes

    // One controller for both the total deadline and the caller's cancel; the flags say which.
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
    const onCallerAbort = () => controller.abort()
    req.signal?.addEventListener('abort', onCallerAbort, { once: true })
    if (req.signal?.aborted) controller.abort()

    try {
      const res = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        body: req.body ?? null,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      })
      const ok = res.statusCode >= 200 && res.statusCode < 300
      if (ok && req.acceptContentTypes) {
        const type = res.headers['content-type']
        if (!mediaTypeAccepted(type, req.acceptContentTypes)) {
          discardBody(res)
          throw new HttpEgressError(
            'unsupported_content_type',
            `Response from ${host} has content type ${String(type ?? 'none')}, expected ${req.acceptContentTypes.join(', ')}`,
            { host },
          )
        }
      }
      const { body, truncated } = await readCapped(res, maxBytes, req.onOversize ?? 'error', host)
      return { status: res.statusCode, headers: res.headers, body, truncated }
    } catch (err) {
      if (timedOut) {
        throw new HttpEgressError('timeout', `Request to ${host} timed out after ${timeoutMs} ms`, {
          host,
          cause: err,
        })
      }
      if (req.signal?.aborted) {
        throw new HttpEgressError('aborted', `Request to ${host} was cancelled`, {
          host,
          cause: err,
        })
      }
      throw toEgressError(err, host, timeoutMs)
    } finally {
      clearTimeout(timer)
      req.signal?.removeEventListener('abort', onCallerAbort)
    }
  }

  return {
    request,
    checkUrl: (url) => checkUrlForRegistration(url, policy),
    close: () => agent.close(),
  }
}
