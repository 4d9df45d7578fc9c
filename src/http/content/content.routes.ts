import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import type { BlobMeta, BlobObject } from '../../infra/blobs/blob-store.ts'
import { keyProblem } from '../../infra/blobs/safe-path.ts'
import { AppError } from '../../shared/app-error.ts'
import { audienceMatches, contentOriginsOf } from '../../shared/content-origin.ts'
import { verifyToken } from '../../shared/signed-token.ts'
import { installFastPath } from '../fast-path.ts'
import { ContentFastPath } from './content-fast-path.ts'
import {
  CONTENT_SECURITY_HEADERS,
  contentTypeOf,
  ERROR_CACHE_CONTROL,
  setValidatorHeaders,
} from './content-headers.ts'
import { contentKey, parseContentTarget } from './content-path.ts'
import { MEDIA_BLOCK_BYTES, MEDIA_CACHE_BYTES, readRangeFromBlocks } from './media-blocks.ts'
import { evaluatePreconditions, hasPreconditions, ifRangeAllows } from './preconditions.ts'
import { parseRangeHeader, type RangeRequest } from './range-header.ts'
import { type CachedFile, metaOnly, readSmallBody, SmallFileCache } from './small-file.cache.ts'

/**
 * Claims of a `content` token (docs/runtime-protocol.md): the version's blob prefix, session,
 * and the tenant label of the one content origin it is valid on (docs/content-origins.md).
 */
interface ContentClaims {
  p: string
  sid: string
  aud?: unknown
}

interface Grant {
  key: string
  path: string
  /** Seconds the token stays valid: how long a browser may keep the file. */
  maxAge: number
}

export interface ContentRoutesOptions {
  ctx: AppContext
  /**
   * Small files kept in memory; `false` to always read the store (no media blocks either).
   * Default: `SmallFileCache` defaults.
   */
  cache?: SmallFileCache | false
  /** Blocks of large files for ranges (media-blocks.ts); default 1 MiB blocks, 64 MiB in all. */
  mediaBlocks?: SmallFileCache
  /**
   * Answer plain GETs of cached small files in front of Fastify (content-fast-path.ts) on this
   * app's server. Default true (with a cache).
   */
  fastPath?: boolean
}

function notFound(details?: unknown): AppError {
  return new AppError('not_found', 'No such file in this package', details)
}

/** Checks the token and the host it is presented on, then the path, before storage is touched. */
function authorize(ctx: AppContext, request: FastifyRequest, now: Date): Grant {
  const target = parseContentTarget(request.url)
  const verified = verifyToken<ContentClaims>(ctx.config.secretKey, 'content', target.token, now)
  if (!verified.ok) {
    const message =
      verified.reason === 'expired' ? 'Content token has expired' : 'Content token is not valid'
    throw new AppError('forbidden', message, { reason: verified.reason })
  }
  if (!audienceMatches(contentOriginsOf(ctx.config), verified.claims.aud, request.host)) {
    throw new AppError('forbidden', 'Content token is not valid on this address', {
      reason: 'wrong_origin',
    })
  }
  const { p: prefix, exp } = verified.claims
  if (typeof prefix !== 'string' || keyProblem(prefix) !== null) {
    throw new AppError('forbidden', 'Content token is not valid', { reason: 'malformed' })
  }
  // Every unusable path is "no such file": there is none, and the reason helps authors debug.
  if (!target.ok) throw notFound({ reason: target.problem })
  const key = contentKey(prefix, target.path)
  if (key === null) throw notFound({ reason: 'too_long' })
  const maxAge = Math.max(0, exp - Math.floor(now.getTime() / 1000))
  return { key, path: target.path, maxAge }
}

function unsatisfiable(reply: FastifyReply, size: number): AppError {
  reply.header('content-range', `bytes */${size}`)
  return new AppError('range_not_satisfiable', `Range not satisfiable (size ${size})`, { size })
}

/**
 * The inclusive range to serve; null for the whole file. With `size` known the range is
 * clamped and 416 thrown when nothing of it exists; without, `from` ranges go to the store as
 * asked (it clamps, and reports unsatisfiable ones). Suffix ranges always come with a size.
 */
function resolveRange(
  reply: FastifyReply,
  range: RangeRequest,
  size: number | undefined,
): { start: number; end?: number } | null {
  if (range.kind === 'none') return null
  if (range.kind === 'from') {
    if (size === undefined) return { start: range.start, end: range.end }
    if (range.start >= size) throw unsatisfiable(reply, size)
    return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) }
  }
  const total = size ?? 0
  if (range.length === 0 || total === 0) throw unsatisfiable(reply, total)
  return { start: Math.max(0, total - range.length), end: total - 1 }
}

function representationHeaders(reply: FastifyReply, grant: Grant, meta: BlobMeta): void {
  setValidatorHeaders(reply, meta, grant.maxAge)
  reply.header('accept-ranges', 'bytes')
  reply.header('content-type', contentTypeOf(grant.path, meta))
}

function sendFromMemory(
  reply: FastifyReply,
  grant: Grant,
  file: CachedFile,
  range: RangeRequest,
): FastifyReply {
  const { meta, bytes } = file
  const served = resolveRange(reply, range, meta.size)
  representationHeaders(reply, grant, meta)
  if (!served) return reply.code(200).send(bytes)
  const end = served.end ?? meta.size - 1
  reply.header('content-range', `bytes ${served.start}-${end}/${meta.size}`)
  return reply.code(206).send(bytes.subarray(served.start, end + 1))
}

function sendBlockRange(
  reply: FastifyReply,
  grant: Grant,
  { file, start, end }: { file: CachedFile; start: number; end: number },
): FastifyReply {
  representationHeaders(reply, grant, file.meta)
  reply.header('content-range', `bytes ${start}-${end}/${file.meta.size}`)
  return reply.code(206).send(file.bytes)
}

/**
 * Hands the store's stream to Fastify, which pipes it and destroys it if the client goes away.
 * Every other way out must destroy it here: an fs body holds an open FileHandle, and Node 26
 * treats a FileHandle left to the garbage collector as a fatal error.
 */
function sendStream(reply: FastifyReply, grant: Grant, object: BlobObject): FastifyReply {
  if (object.unsatisfiable) {
    object.body.destroy()
    throw unsatisfiable(reply, object.size)
  }
  try {
    representationHeaders(reply, grant, object)
  } catch (err) {
    object.body.destroy()
    throw err
  }
  if (object.range) {
    const { start, end } = object.range
    reply.header('content-range', `bytes ${start}-${end}/${object.size}`)
    reply.header('content-length', String(end - start + 1))
    reply.code(206)
  } else {
    reply.header('content-length', String(object.size))
    reply.code(200)
  }
  return reply.send(object.body)
}

/**
 * `GET`/`HEAD /c/{contentToken}/{path}`: a file of the version the token was made for. Large
 * files are streamed from the blob store, never buffered; small ones may come from the
 * in-memory cache. HEAD reads metadata only. Range: one range (206), else the whole file.
 * Conditional requests: If-Match/If-Unmodified-Since (412), If-None-Match/If-Modified-Since
 * (304), If-Range.
 */
async function serveContent(
  {
    ctx,
    cache,
    blocks,
  }: { ctx: AppContext; cache: SmallFileCache | null; blocks: SmallFileCache | null },
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  reply.headers(CONTENT_SECURITY_HEADERS)
  reply.header('cache-control', ERROR_CACHE_CONTROL)
  const now = ctx.clock.now()
  const grant = authorize(ctx, request, now)
  const { headers } = request
  const isHead = request.method === 'HEAD'
  // Range handling is defined for GET only (RFC 9110 §14.2): HEAD describes the whole file.
  let range = parseRangeHeader(isHead ? undefined : headers.range)
  const cached = cache?.get(grant.key, now.getTime())
  const needsMeta =
    isHead ||
    hasPreconditions(headers) ||
    range.kind === 'suffix' ||
    (range.kind !== 'none' && headers['if-range'] !== undefined)

  // Without validators to check, one store call gets metadata and bytes together.
  let meta: BlobMeta | null = cached?.meta ?? null
  if (needsMeta) {
    meta ??= await ctx.blobs.head(grant.key)
    if (!meta) throw notFound()
    const outcome = evaluatePreconditions(headers, meta)
    if (outcome === 'failed') throw new AppError('precondition_failed', 'Precondition failed')
    if (outcome === 'not_modified') {
      setValidatorHeaders(reply, meta, grant.maxAge)
      return reply.code(304).send()
    }
    if (isHead) {
      representationHeaders(reply, grant, meta)
      reply.header('content-length', String(meta.size))
      return reply.code(200).send()
    }
    const ifRange = headers['if-range']
    const rangeStillValid = typeof ifRange !== 'object' && ifRangeAllows(ifRange, meta)
    if (range.kind !== 'none' && !rangeStillValid) range = { kind: 'none' }
  }
  if (cached) return sendFromMemory(reply, grant, cached, range)

  const wanted = resolveRange(reply, range, meta?.size)
  if (wanted && blocks) {
    const read = await readRangeFromBlocks(ctx.blobs, blocks, grant.key, wanted, now.getTime())
    if (read.kind === 'missing') throw notFound()
    if (read.kind === 'unsatisfiable') throw unsatisfiable(reply, read.size)
    if (read.kind === 'bytes') return sendBlockRange(reply, grant, read)
  }
  const object = wanted ? await ctx.blobs.get(grant.key, wanted) : await ctx.blobs.get(grant.key)
  if (!object) throw notFound()
  if (!wanted && cache?.accepts(object.size)) {
    const file = { meta: metaOnly(object), bytes: await readSmallBody(object.body, object.size) }
    cache.set(grant.key, file, now.getTime())
    return sendFromMemory(reply, grant, file, range)
  }
  return sendStream(reply, grant, object)
}

/**
 * The content origin's file server (docs/runtime-protocol.md §5). The path is read from the raw
 * URL (see `parseContentTarget`), so both routes share one handler; `/c/{token}` alone is a
 * 404 like any other non-file. Request logging is at `warn`: the URL is a credential for 12 h and
 * must not end up in access logs, and it keeps the per-file cost down. Plain GETs of files already
 * in memory are answered before Fastify, on this app's server (content-fast-path.ts).
 */
export async function contentRoutes(
  app: FastifyInstance,
  options: ContentRoutesOptions,
): Promise<void> {
  const memory = options.cache !== false
  const deps = {
    ctx: options.ctx,
    cache: options.cache === false ? null : (options.cache ?? new SmallFileCache()),
    blocks: memory
      ? (options.mediaBlocks ??
        new SmallFileCache({ maxFileBytes: MEDIA_BLOCK_BYTES, maxTotalBytes: MEDIA_CACHE_BYTES }))
      : null,
  }
  const handler = (request: FastifyRequest, reply: FastifyReply) =>
    serveContent(deps, request, reply)
  if (deps.cache && options.fastPath !== false) {
    const { config, clock, metrics } = options.ctx
    const fast = new ContentFastPath({
      secretKey: config.secretKey,
      origins: contentOriginsOf(config),
      clock,
      cache: deps.cache,
      blocks: deps.blocks ?? undefined,
      metrics,
    })
    installFastPath(app.server, fast)
    app.addHook('preClose', (done) => {
      fast.close()
      done()
    })
  }
  // Declared for the schema's sake: the handler reads token and path from the raw URL (see
  // parseContentTarget), never from these decoded params.
  const params = Type.Object({ token: Type.String(), '*': Type.Optional(Type.String()) })
  for (const url of ['/c/:token/*', '/c/:token']) {
    app.withTypeProvider<TypeBoxTypeProvider>().route({
      method: ['GET', 'HEAD'],
      url,
      schema: { params },
      exposeHeadRoute: false,
      logLevel: 'warn',
      handler,
    })
  }
}
