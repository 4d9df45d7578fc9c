import type { Config } from '../../config.ts'
import type { Clock } from '../../shared/clock.ts'
import { contentOriginsOf, hostAudience } from '../../shared/content-origin.ts'
import { verifyToken } from '../../shared/signed-token.ts'

export type LaunchPageAccess =
  | { kind: 'serve' }
  | { kind: 'redirect'; location: string }
  | { kind: 'refuse' }

/**
 * What to do with `GET /launch/{sessionId}?token=` on this host (docs/content-origins.md). The
 * page is a static shell, and `start` refuses a token on the wrong host anyway; this answers
 * before a page loads: a valid token asked for on the bare CONTENT_URL host goes to its tenant's
 * origin, one asked for on another tenant's origin is refused. An invalid or expired token gets
 * the page, whose `start` call shows the learner why.
 */
export function launchPageAccess(
  deps: { config: Config; clock: Clock },
  request: { sessionId: string; token?: string; host: string; url: string },
): LaunchPageAccess {
  const origins = contentOriginsOf(deps.config)
  if (origins.mode === 'single' || !request.token) return { kind: 'serve' }
  const result = verifyToken<{ sid?: unknown; aud?: unknown }>(
    deps.config.secretKey,
    'launch',
    request.token,
    deps.clock.now(),
  )
  if (!result.ok || result.claims.sid !== request.sessionId) return { kind: 'serve' }
  const { aud } = result.claims
  const seen = hostAudience(origins, request.host)
  if (seen.kind === 'tenant' && seen.label === aud) return { kind: 'serve' }
  if (seen.kind === 'bare' && typeof aud === 'string') {
    const base = new URL(origins.contentUrl)
    return { kind: 'redirect', location: `${base.protocol}//${aud}.${base.host}${request.url}` }
  }
  return { kind: 'refuse' }
}
