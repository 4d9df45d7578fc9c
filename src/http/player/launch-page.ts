import { htmlShell, pageCsp } from '../plugins/security-headers.ts'

/**
 * The launch page: a static shell that loads the player bundle. It carries no data (the bundle
 * reads the session id from the path and the launch token from the query string), so it can be
 * held to a strict policy with no inline script or style.
 */

/**
 * Only for the player page: the SCO frame is a separate document and is not bound by it.
 * No frame-ancestors: launches must work inside an LMS's cross-site iframe.
 */
export const PLAYER_CSP = pageCsp([
  ['script-src', "'self'"],
  ['style-src', "'self'"],
  ['img-src', "'self' data:"],
  ['font-src', "'self'"],
  ['frame-src', "'self'"],
  ['connect-src', "'self'"],
])

/** `version` is appended to the asset URLs so they can be cached for good. */
export function launchPageHtml(version: string): string {
  const v = encodeURIComponent(version)
  return htmlShell({
    viewport: 'width=device-width, initial-scale=1, viewport-fit=cover',
    head: `<link rel="stylesheet" href="/player/player.css?v=${v}">
<script src="/player/player.js?v=${v}" defer></script>`,
    body: `<div id="courseport-player" class="cp-app"><p class="cp-boot">Loading the course…</p></div>
<noscript><p class="cp-boot">This course needs JavaScript. Turn it on and reload the page.</p></noscript>`,
  })
}
