import type { FastifyInstance } from 'fastify'

/**
 * The one security-header policy of both origins, and the shell of our own HTML pages (STYLE:
 * one policy, one place).
 *
 * - Our own HTML pages (the player's launch page, the dispatch frame page) are built with
 *   `htmlShell` and sent with `pageHeaders`:
 *   a CSP that starts from `default-src 'none'` and allows only what the page names, no
 *   caching, no Referer (the URL carries a launch token), `nosniff`.
 * - Package files on the content origin get `PACKAGE_FILE_HEADERS` (see content-headers.ts for
 *   why there is no CSP on them).
 * - The API origin gets `registerApiSecurityHeaders`: `nosniff` and no Referer on everything,
 *   and on HTML (the API reference at /api/docs) a CSP that forbids framing.
 */

/** `default-src 'none'`, then the page's own sources in order, then the directives every page shares. */
export function pageCsp(sources: ReadonlyArray<readonly [string, string]>): string {
  return [
    "default-src 'none'",
    ...sources.map(([directive, value]) => `${directive} ${value}`),
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ')
}

/** The headers of one of our own HTML pages, with its CSP. */
export function pageHeaders(csp: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': csp,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  }
}

/**
 * On every package file of the content origin, errors included: `nosniff`, a Referer that
 * never carries the token path to other sites, and no embedding from other origins.
 */
export const PACKAGE_FILE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-resource-policy': 'same-origin',
})

/**
 * HTML on the API origin is only the API reference page (it runs its own scripts and styles,
 * so those are not restricted here); it may not be framed by anyone, nor rebase its URLs.
 */
export const API_HTML_CSP = "frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

/** Adds the API origin's headers to every response that has not set its own. */
export function registerApiSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('x-content-type-options'))
      reply.header('x-content-type-options', 'nosniff')
    if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'no-referrer')
    const type = String(reply.getHeader('content-type') ?? '')
    if (type.startsWith('text/html') && !reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', API_HTML_CSP)
      reply.header('x-frame-options', 'DENY')
    }
    return payload
  })
}

/**
 * The content origin's default for responses that set nothing (JSON errors, runtime answers);
 * the runtime's commit fast path sends it itself (runtime/commit-fast-path.ts).
 */
export const CONTENT_DEFAULT_NOSNIFF = ['x-content-type-options', 'nosniff'] as const

export function registerContentSecurityDefaults(app: FastifyInstance): void {
  const [name, value] = CONTENT_DEFAULT_NOSNIFF
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader(name)) reply.header(name, value)
    return payload
  })
}

/**
 * The shell of our own HTML pages: no Referer (the URL carries a token), not indexed, no favicon
 * request, title "Course" (the page sits inside an LMS frame). `head` and `body` are trusted
 * markup; anything from a request must be escaped before it gets here.
 */
export function htmlShell(page: {
  head: string
  body: string
  /** Default `width=device-width, initial-scale=1`. */
  viewport?: string
  bodyClass?: string
}): string {
  const viewport = page.viewport ?? 'width=device-width, initial-scale=1'
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="${viewport}">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>Course</title>
${page.head}
</head>
<body${page.bodyClass ? ` class="${page.bodyClass}"` : ''}>
${page.body}
</body>
</html>
`
}
