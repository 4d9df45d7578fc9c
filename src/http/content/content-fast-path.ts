import type { IncomingMessage, ServerResponse } from 'node:http'
import { keyProblem } from '../../infra/blobs/safe-path.ts'
import type { Metrics } from '../../infra/metrics/index.ts'
import type { Clock } from '../../shared/clock.ts'
import { audienceMatches, type ContentOrigins } from '../../shared/content-origin.ts'
import { verifyToken } from '../../shared/signed-token.ts'
import { CONTENT_SECURITY_HEADERS, contentTypeOf } from './content-headers.ts'
import { contentKey, parseContentTarget } from './content-path.ts'
import { cachedBlockRange } from './media-blocks.ts'
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
 * A file's headers in `writeHead`'s flat form, kept with the `max-age` they were made for:
 * requests in the same second with tokens of the same expiry reuse them as they are (Node reads
 * the arrays, never changes them).
 */
interface FileHeaders {
  maxAge: number
  /** Everything but the length: what a 206 starts with. */
  representation: string[]
  /** A 200's: `representation` and the file's length. */
  whole: string[]
}

export interface ContentFastPathDeps {
  secretKey: string
  origins: ContentOrigins
  clock: Clock
  cache: SmallFileCache
  /** The media blocks (media-blocks.ts); absent: ranges of large files all go to Fastify. */
  blocks?: SmallFileCache
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
 * The one range form answered here, `bytes=a-b` or `bytes=a-`, exactly as players send it.
 * Positions of up to 15 digits stay exact numbers; anything longer, spaced, suffixed or listed
 * is Fastify's to parse (`parseRangeHeader`).
 */
const SIMPLE_RANGE = /^bytes=(\d{1,15})-(\d{0,15})$/

/** A range request's bounds; `end` inclusive, undefined: to the end of the file. */
interface Wanted {
  start: number
  end: number | undefined
}

/**
 * The common case of the content origin answered without the framework: a plain `GET` of a
 * small file already in memory, or of one range of a file whose bytes are already in memory (a
 * small file, or a video's media blocks), with a valid token on the right host. A page of a
 * course pulls dozens of small files and a player a stream of 1 MiB ranges; per request the
 * framework's request and reply objects, hooks, promise chain and per-request logger cost more
 * than the answer itself (issue 15.4; bench/README.md).
 *
 * The answer is byte for byte what `serveContent` sends for the same request (the same headers
 * and body; a test compares both). Anything else — HEAD, suffix or multiple ranges, `If-Range`,
 * conditional requests, a body, a forwarded host, any token or path problem, an unsatisfiable
 * range, bytes not in memory, a server closing — returns false untouched and goes to Fastify,
 * which answers it (errors included) as before. The request is recorded in the metrics as
 * Fastify's hook would record it. Hooks of the content app never see these requests: one added
 * there that must (rate limiting, say) has to be mirrored here or turn the fast path off
 * (`contentRoutes`' `fastPath: false`).
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
      h['if-range'] !== undefined ||
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
    const wanted = h.range === undefined ? null : simpleRange(h.range)
    if (wanted === undefined) return false
    const started = performance.now()
    const now = this.#deps.clock.now().getTime()
    const grant = this.#grant(url, now)
    if (!grant || now >= grant.exp * 1000) return false
    if (grant.host !== h.host) {
      if (!audienceMatches(this.#deps.origins, grant.aud, h.host)) return false
      grant.host = h.host
    }
    const status = this.#answer(res, grant, wanted, now)
    if (status === null) return false
    this.#deps.metrics.httpRequest({
      origin: 'content',
      route: ROUTE,
      method: 'GET',
      statusCode: status,
      seconds: (performance.now() - started) / 1000,
    })
    return true
  }

  /** Sends the file or range when its bytes are in memory: the status sent, or null (nothing sent). */
  #answer(res: ServerResponse, grant: UrlGrant, wanted: Wanted | null, now: number): number | null {
    const maxAge = Math.max(0, grant.exp - Math.floor(now / 1000))
    const file = this.#deps.cache.get(grant.key, now)
    if (file) {
      const headers = this.#fileHeaders(file, grant.path, maxAge)
      if (!wanted) {
        res.writeHead(200, headers.whole)
        res.end(file.bytes)
        return 200
      }
      const { size } = file.meta
      if (wanted.start >= size) return null
      const end = Math.min(wanted.end ?? size - 1, size - 1)
      res.writeHead(206, partialHeaders(headers.representation, wanted.start, end, size))
      res.end(file.bytes.subarray(wanted.start, end + 1))
      return 206
    }
    if (!wanted || !this.#deps.blocks) return null
    const range = cachedBlockRange(this.#deps.blocks, grant.key, wanted.start, wanted.end, now)
    if (!range) return null
    const { representation } = this.#fileHeaders(range.head, grant.path, maxAge)
    res.writeHead(206, partialHeaders(representation, range.start, range.end, range.meta.size))
    sendParts(res, range.parts)
    return 206
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

  /**
   * A key is its version's prefix and the path: one cached file (or media block) is only ever
   * one path. A block's `whole` is never sent (its length is the block's, not the file's).
   */
  #fileHeaders(file: CachedFile, path: string, maxAge: number): FileHeaders {
    const known = this.#headers.get(file)
    if (known?.maxAge === maxAge) return known
    let representation: string[]
    if (known) {
      representation = known.representation.slice()
      representation[CACHE_CONTROL_VALUE] = cacheControl(maxAge)
    } else {
      const { meta } = file
      representation = [
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
      ]
    }
    const whole = [...representation, 'content-length', String(file.bytes.length)]
    const headers = { maxAge, representation, whole }
    this.#headers.set(file, headers)
    return headers
  }
}

/**
 * The bounds of a `Range` header this path answers; null: no header; undefined: a form left to
 * Fastify (including `b < a`, which makes Fastify ignore the header).
 */
function simpleRange(header: string | string[]): Wanted | undefined {
  const match = typeof header === 'string' ? SIMPLE_RANGE.exec(header) : null
  if (!match) return undefined
  const start = Number(match[1])
  if (match[2] === '') return { start, end: undefined }
  const end = Number(match[2])
  return end < start ? undefined : { start, end }
}

/** A 206's headers in the order `sendFromMemory` and `sendBlockRange` set them. */
function partialHeaders(representation: string[], start: number, end: number, size: number) {
  return [
    ...representation,
    'content-range',
    `bytes ${start}-${end}/${size}`,
    'content-length',
    String(end - start + 1),
  ]
}

/** A range over two blocks goes out as one write, without copying both into one buffer first. */
function sendParts(res: ServerResponse, parts: Buffer[]): void {
  if (parts.length === 1) {
    res.end(parts[0])
    return
  }
  res.cork()
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i])
  res.end(parts[parts.length - 1])
  res.uncork()
}
