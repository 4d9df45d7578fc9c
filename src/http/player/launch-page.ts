/**
 * The launch page: a static shell that loads the player bundle. It carries no data (the bundle
 * reads the session id from the path and the launch token from the query string), so it can be
 * held to a strict policy with no inline script or style.
 */

/**
 * Only for the player page: the SCO frame is a separate document and is not bound by it.
 * No frame-ancestors: launches must work inside an LMS's cross-site iframe.
 */
export const PLAYER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "frame-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ')

/** `version` is appended to the asset URLs so they can be cached for good. */
export function launchPageHtml(version: string): string {
  const v = encodeURIComponent(version)
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>Course</title>
<link rel="stylesheet" href="/player/player.css?v=${v}">
<script src="/player/player.js?v=${v}" defer></script>
</head>
<body>
<div id="courseport-player" class="cp-app"><p class="cp-boot">Loading the course…</p></div>
<noscript><p class="cp-boot">This course needs JavaScript. Turn it on and reload the page.</p></noscript>
</body>
</html>
`
}
