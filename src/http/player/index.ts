import type { FastifyInstance } from 'fastify'
import { ensureBrowserBundle, PLAYER_DIST_DIR } from '../../browser/build.ts'
import { launchPageHtml, PLAYER_CSP } from './launch-page.ts'
import { chooseEncoding, loadPlayerAssets } from './player-assets.ts'

export interface PlayerRoutesOptions {
  /** Where the built bundle lives. Default `dist/player` in the project (built if missing). */
  readonly distDir?: string
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/

/**
 * Content origin: `GET /launch/:sessionId` (the player page) and `GET /player/*` (its bundle).
 * Registration waits for the bundle: a fresh checkout builds it on first start.
 */
export async function playerRoutes(
  app: FastifyInstance,
  options: PlayerRoutesOptions = {},
): Promise<void> {
  const distDir = options.distDir ?? PLAYER_DIST_DIR
  await ensureBrowserBundle({
    outdir: distDir,
    warn: (message, err) => app.log.warn({ err }, message),
  })
  const assets = await loadPlayerAssets(distDir)
  const page = launchPageHtml(assets.version)

  app.get<{ Params: { sessionId: string } }>('/launch/:sessionId', async (request, reply) => {
    if (!SESSION_ID.test(request.params.sessionId)) return reply.callNotFound()
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', PLAYER_CSP)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .send(page)
  })

  app.get<{ Params: { '*': string }; Querystring: { v?: string } }>(
    '/player/*',
    async (request, reply) => {
      const asset = assets.get(request.params['*'])
      if (!asset) return reply.callNotFound()
      // Launch pages ask for `?v={version}`: that exact version never changes. Any other URL
      // (old pages, source-map lookups) revalidates with the ETag.
      const pinned = request.query.v === assets.version
      reply
        .header('content-type', asset.contentType)
        .header(
          'cache-control',
          pinned ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate',
        )
        .header('etag', asset.etag)
        .header('vary', 'accept-encoding')
        .header('x-content-type-options', 'nosniff')
        .header('cross-origin-resource-policy', 'same-origin')
      if (etagMatches(request.headers['if-none-match'], asset.etag)) {
        return reply.status(304).send()
      }
      const encoding = chooseEncoding(request.headers['accept-encoding'])
      if (encoding !== 'identity') reply.header('content-encoding', encoding)
      return reply.send(asset[encoding])
    },
  )
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === etag || t === '*')
}
