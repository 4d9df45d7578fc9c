import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { keyProblem } from '../../infra/blobs/safe-path.ts'
import type { Metrics } from '../../infra/metrics/index.ts'
import type { Clock } from '../../shared/clock.ts'
import { audienceMatches, type ContentOrigins } from '../../shared/content-origin.ts'
import { verifyToken } from '../../shared/signed-token.ts'
import { CONTENT_SECURITY_HEADERS, contentTypeOf } from './content-headers.ts'
import { contentKey, parseContentTarget } from './content-path.ts'
import type { CachedFile, SmallFileCache } from './small-file.cache.ts'

/** What a request URL was found to grant: checked once per URL, its expiry on every use. */
interface UrlGrant {
  key: string
  path: string
  /** The token's `exp`, Unix seconds. */
  exp: number
  aud: unknown
  /** The last Host the audience was checked against and matched; undefined: none yet. */
  host: string | undefined
}

/**
 * A cached file's headers in `writeHead`'s flat form, kept with the `max-age` they were made
 * for: requests in the same second with tokens of the same expiry reuse them as they are
 * (Node reads the array, never changes it).
 */
interface FileHeaders {
  maxAge: number
  flat: string[]
}

export interface ContentFastPathDeps {
  secretKey: string
  origins: ContentOrigins
  clock: Clock
  cache: SmallFileCache
  metrics: Metrics
}

/** The route a fast answer is recorded under: the one Fastify would have matched. */
const ROUTE = '/c/:token/*'
/** Fastify's `maxParamLength` (app.ts): a longer token never reaches the route there either. */
const MAX_TOKEN_LENGTH = 2048
/** URLs whose checks are remembered; the map is emptied when full (a cache, nothing more). */
const MAX_GRANTS = 20_000
const SECURITY_HEADERS = Object.entries(CONTENT_SECURITY_HEADERS).flat()
const CACHE_CONTROL_VALUE = SECURITY_HEADERS.length + 1
/** As `setValidatorHeaders` says it. */
const cacheControl = (maxAge: number) => `private, max-age=${maxAge}, immutable`

/**
 * The common case of the content origin answered without the framework: a plain `GET` of a
 * small file already in memory, with a valid token on the right host. A page of a course pulls
 * dozens of such files, and per file the framework's request and reply objects, hooks and
 * per-request logger cost more than the answer itself (issue 15.4; bench/README.md).
 *
 * The answer is byte for byte what `serveContent` sends for the same request (the same headers
 * and body; a test compares both). Anything else — HEAD, ranges, conditional requests, a body,
 * a forwarded host, any token or path problem, a file not in memory, a server closing — returns
 * false untouched and goes to Fastify, which answers it (errors included) as before. The
 * request is recorded in the metrics as Fastify's hook would record it. Hooks of the content app
 * never see these requests: one added there that must (rate limiting, say) has to be mirrored
 * here or turn the fast path off (`contentRoutes`' `fastPath: false`).
 */
export class ContentFastPath {
  readonly #deps: ContentFastPathDeps
  readonly #grants = new Map<string, UrlGrant>()
  readonly #headers = new WeakMap<CachedFile, FileHeaders>()
  #open = true

  constructor(deps: ContentFastPathDeps) {
    this.#deps = deps
  }

  /** From now on every request goes to Fastify (it answers 503 while closing). */
  close(): void {
    this.#open = false
  }

  /** Answers the request and returns true, or returns false without touching it. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url
    if (!this.#open || req.method !== 'GET' || url === undefined || !url.startsWith('/c/')) {
      return false
    }
    const h = req.headers
    if (
      h.host === undefined ||
      h.range !== undefined ||
      h['if-match'] !== undefined ||
      h['if-none-match'] !== undefined ||
      h['if-modified-since'] !== undefined ||
      h['if-unmodified-since'] !== undefined ||
      h['content-length'] !== undefined ||
      h['transfer-encoding'] !== undefined ||
      h['x-forwarded-host'] !== undefined
    ) {
      return false
    }
    const started = performance.now()
    const now = this.#deps.clock.now().getTime()
    const grant = this.#grant(url, now)
    if (!grant || now >= grant.exp * 1000) return false
    if (grant.host !== h.host) {
      if (!audienceMatches(this.#deps.origins, grant.aud, h.host)) return false
      grant.host = h.host
    }
    const file = this.#deps.cache.get(grant.key, now)
    if (!file) return false
    const maxAge = Math.max(0, grant.exp - Math.floor(now / 1000))
    res.writeHead(200, this.#fileHeaders(file, grant.path, maxAge))
    res.end(file.bytes)
    this.#deps.metrics.httpRequest({
      origin: 'content',
      route: ROUTE,
      method: 'GET',
      statusCode: 200,
      seconds: (performance.now() - started) / 1000,
    })
    return true
  }

  /** The URL's token and path as `authorize` checks them (expiry aside); null: let Fastify answer. */
  #grant(url: string, now: number): UrlGrant | null {
    const known = this.#grants.get(url)
    if (known) return known
    const target = parseContentTarget(url)
    if (!target.ok || target.token.length > MAX_TOKEN_LENGTH) return null
    const verified = verifyToken<{ p?: unknown; aud?: unknown }>(
      this.#deps.secretKey,
      'content',
      target.token,
      new Date(now),
    )
    if (!verified.ok) return null
    const { p: prefix, exp, aud } = verified.claims
    if (typeof prefix !== 'string' || keyProblem(prefix) !== null) return null
    const key = contentKey(prefix, target.path)
    if (key === null) return null
    const grant: UrlGrant = { key, path: target.path, exp, aud, host: undefined }
    if (this.#grants.size >= MAX_GRANTS) this.#grants.clear()
    this.#grants.set(url, grant)
    return grant
  }

  /** A key is its version's prefix and the path: one cached file is only ever one path. */
  #fileHeaders(file: CachedFile, path: string, maxAge: number): string[] {
    const known = this.#headers.get(file)
    if (known?.maxAge === maxAge) return known.flat
    let flat: string[]
    if (known) {
      flat = known.flat.slice()
      flat[CACHE_CONTROL_VALUE] = cacheControl(maxAge)
    } else {
      const { meta } = file
      flat = [
        ...SECURITY_HEADERS,
        'cache-control',
        cacheControl(maxAge),
        'etag',
        meta.etag,
        'last-modified',
        meta.lastModified.toUTCString(),
        'accept-ranges',
        'bytes',
        'content-type',
        contentTypeOf(path, meta),
        'content-length',
        String(file.bytes.length),
      ]
    }
    this.#headers.set(file, { maxAge, flat })
    return flat
  }
}

/**
 * Puts `fast` in front of the server's request handler (Fastify's): what it answers never
 * reaches Fastify. Only real connections pass here; `inject` (tests) always reaches Fastify.
 */
export function installFastPath(server: Server, fast: ContentFastPath): void {
  const handlers = server.listeners('request') as Array<
    (req: IncomingMessage, res: ServerResponse) => void
  >
  // No handler yet (a server made elsewhere): nothing to put the fast path in front of.
  if (handlers.length === 0) return
  server.removeAllListeners('request')
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (fast.serve(req, res)) return
    for (const handler of handlers) handler(req, res)
  })
}
