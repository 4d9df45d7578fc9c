import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../context.ts'
import { dispatchScripts } from '../../modules/dispatches/dispatch-scripts.bundler.ts'
import { AppError } from '../../shared/app-error.ts'

const FRAME_STYLE = `
html, body { margin: 0; height: 100%; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
  background: #f6f8fa; display: flex; align-items: center; justify-content: center; }
main { max-width: 34em; margin: 1.5em; padding: 1.75em 2em; background: #fff; border-radius: 12px;
  box-shadow: 0 1px 3px rgba(0,0,0,.12); }
h1 { font-size: 1.25em; margin: 0 0 .5em; }
p { margin: 0; }
button { margin-top: 1.25em; font: inherit; padding: .5em 1.25em; border-radius: 6px;
  border: 1px solid #1f6feb; background: #1f6feb; color: #fff; cursor: pointer; }
.cp-busy h1::after { content: ""; display: inline-block; width: .8em; height: .8em;
  margin-left: .6em; border: 2px solid #8c959f; border-right-color: transparent;
  border-radius: 50%; animation: cp-spin .8s linear infinite; vertical-align: -0.1em; }
@keyframes cp-spin { to { transform: rotate(360deg); } }
`

const STYLE_HASH = createHash('sha256').update(FRAME_STYLE).digest('base64')

/**
 * The frame page needs no inline script; its one inline style is allowed by hash. Framing is
 * allowed from anywhere on purpose: a launch from a disallowed LMS must still show the learner
 * why it was refused, and is recorded (docs/dispatch.md).
 */
const FRAME_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ')

function framePage(scriptVersion: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>Course</title>
<style>${FRAME_STYLE}</style>
<script src="/dispatch/assets/frame.js?v=${scriptVersion}" defer></script>
</head>
<body class="cp-busy">
<main aria-live="polite">
<h1 id="cp-title">Opening the course…</h1>
<p id="cp-text"></p>
<button id="cp-retry" type="button" hidden>Try again</button>
</main>
<noscript><p>This course needs JavaScript. Turn it on and reopen the course.</p></noscript>
</body>
</html>
`
}

const DISPATCH_ID = /^dsp_[A-Za-z0-9]{1,64}$/

function text(value: unknown, name: string, max: number, required = true): string {
  if (value === undefined && !required) return ''
  if (typeof value !== 'string' || value.length > max) {
    throw new AppError('invalid_request', `${name} must be a string of at most ${max} characters`)
  }
  return value
}

/**
 * Content origin: the dispatch frame page the wrapper package opens, its script, and the launch
 * call the page makes once the wrapper has said hello (docs/dispatch.md).
 */
export async function dispatchFrameRoutes(
  app: FastifyInstance,
  { ctx }: { ctx: AppContext },
): Promise<void> {
  const { dispatchLaunches } = ctx.services
  const { frame } = await dispatchScripts()
  const frameEtag = `"${createHash('sha256').update(frame).digest('base64url').slice(0, 22)}"`
  const page = framePage(frameEtag.slice(1, 13))

  app.get<{ Params: { dispatchId: string } }>(
    '/dispatch/:dispatchId/frame',
    async (request, reply) => {
      if (!DISPATCH_ID.test(request.params.dispatchId)) return reply.callNotFound()
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', FRAME_CSP)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff')
        .send(page)
    },
  )

  app.get('/dispatch/assets/frame.js', async (request, reply) => {
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('etag', frameEtag)
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', 'same-origin')
    if (request.headers['if-none-match'] === frameEtag) return reply.status(304).send()
    return reply.send(frame)
  })

  app.post<{ Params: { dispatchId: string } }>(
    '/dispatch/:dispatchId/launch',
    { bodyLimit: 16 * 1024 },
    async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>
      if (typeof body !== 'object' || Array.isArray(body)) {
        throw new AppError('invalid_request', 'Send a JSON object')
      }
      const result = await dispatchLaunches.launch(request.params.dispatchId, {
        token: text(body.token, 'token', 4096),
        origin: text(body.origin, 'origin', 2048),
        learnerId: text(body.learner_id, 'learner_id', 4096),
        learnerName: text(body.learner_name, 'learner_name', 4096, false),
      })
      return reply.header('cache-control', 'no-store').send(result)
    },
  )
}
