import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ensureBrowserBundle, PLAYER_DIST_DIR } from '../../browser/build.ts'
import type { Config } from '../../config.ts'
import type { Clock } from '../../shared/clock.ts'
import { pageHeaders } from '../plugins/security-headers.ts'
import { type LaunchPageAccess, launchPageAccess } from './launch-access.ts'
import { launchPageHtml, PLAYER_CSP } from './launch-page.ts'
import { chooseEncoding, loadPlayerAssets } from './player-assets.ts'

export interface PlayerRoutesOptions {
  /** Where the built bundle lives. Default `dist/player` in the project (built if missing). */
  readonly distDir?: string
  /**
   * With these, a launch page is checked against the host it is asked on (docs/content-origins.md):
   * a valid token on the bare CONTENT_URL host is redirected to its tenant's origin, on another
   * tenant's origin refused. Default: no check (the player's `start` call checks anyway).
   */
  readonly origins?: { config: Config; clock: Clock }
}

const LaunchParams = Type.Object({ sessionId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$' }) })
const LaunchQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 4096 })) })
const AssetParams = Type.Object({ '*': Type.String() })
const AssetQuery = Type.Object({ v: Type.Optional(Type.String()) })

/**
 * Content origin: `GET /launch/:sessionId` (the player page) and `GET /player/*` (its bundle).
 * Registration waits for the bundle: a fresh checkout builds it on first start.
 */
export async function playerRoutes(
  plain: FastifyInstance,
  options: PlayerRoutesOptions = {},
): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>()
  const distDir = options.distDir ?? PLAYER_DIST_DIR
  await ensureBrowserBundle({
    outdir: distDir,
    warn: (message, err) => app.log.warn({ err }, message),
  })
  const assets = await loadPlayerAssets(distDir)
  const page = launchPageHtml(assets.version)

  app.get(
    '/launch/:sessionId',
    {
      schema: { params: LaunchParams, querystring: LaunchQuery },
      // A bad session id is "no such page", like any other unknown URL.
      attachValidation: true,
    },
    async (request, reply) => {
      if (request.validationError) return reply.callNotFound()
      const access: LaunchPageAccess = options.origins
        ? launchPageAccess(options.origins, {
            sessionId: request.params.sessionId,
            token: request.query.token,
            host: request.host,
            url: request.url,
          })
        : { kind: 'serve' }
      if (access.kind === 'redirect') {
        return reply.header('cache-control', 'no-store').redirect(access.location, 302)
      }
      if (access.kind === 'refuse') {
        return reply
          .code(403)
          .header('cache-control', 'no-store')
          .header('content-type', 'text/plain; charset=utf-8')
          .send('This course link belongs to another address. Open it from where you got it.')
      }
      return reply.headers(pageHeaders(PLAYER_CSP)).send(page)
    },
  )

  app.get(
    '/player/*',
    { schema: { params: AssetParams, querystring: AssetQuery } },
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
