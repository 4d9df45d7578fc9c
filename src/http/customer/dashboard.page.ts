import type { FastifyPluginAsync } from 'fastify'
import { pageCsp, pageHeaders } from '../plugins/security-headers.ts'
import { type DashboardBundle, dashboardBundle } from './dashboard-bundle.ts'

/**
 * The dashboard's CSP: only its own script, stylesheet and API calls; no inline code, no
 * framing by anyone. Preact and uPlot set styles through the CSSOM, which style-src does not
 * govern. A presigned upload URL on another origin (an S3 bucket) is not in connect-src: the
 * upload form then posts the file to /api/customer instead (pages/package-upload.tsx).
 */
export const DASHBOARD_CSP = pageCsp([
  ['script-src', "'self'"],
  ['style-src', "'self'"],
  ['connect-src', "'self'"],
  ['img-src', "'self'"],
  ['frame-ancestors', "'none'"],
])

const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Courseport dashboard</title>
<link rel="icon" href="/dashboard/assets/favicon.svg">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script defer src="/dashboard/assets/dashboard.js"></script>
</head>
<body>
<div id="app"><noscript>The Courseport dashboard needs JavaScript.</noscript></div>
</body>
</html>
`

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57d0"/><path d="M4 8h8M8 4v8" stroke="#fff" stroke-width="2"/></svg>'

const ASSET_TYPES: Record<keyof DashboardBundle, string> = {
  'dashboard.js': 'text/javascript; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
}

/**
 * `/dashboard/` (the page), its two assets, and `/dashboard` and `/` → `/dashboard/` (the API
 * origin's root is where a newcomer lands first).
 */
export const dashboardPage: FastifyPluginAsync = async (app) => {
  const hide = { schema: { hide: true } }
  app.get('/', hide, async (_request, reply) => reply.redirect('/dashboard/'))
  app.get('/dashboard', hide, async (_request, reply) => reply.redirect('/dashboard/'))
  app.get('/dashboard/', hide, async (_request, reply) =>
    reply.headers({ ...pageHeaders(DASHBOARD_CSP), 'x-frame-options': 'DENY' }).send(SHELL),
  )
  app.get<{ Params: { name: string } }>('/dashboard/assets/:name', hide, async (request, reply) => {
    if (request.params.name === 'favicon.svg')
      return reply.type('image/svg+xml').header('cache-control', 'max-age=86400').send(FAVICON)
    const name = request.params.name as keyof DashboardBundle
    if (!(name in ASSET_TYPES)) return reply.callNotFound()
    const bundle = await dashboardBundle()
    return reply.type(ASSET_TYPES[name]).header('cache-control', 'no-cache').send(bundle[name])
  })
}
