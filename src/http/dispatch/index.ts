import { createHash } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import { dispatchScripts } from '../../modules/dispatches/dispatch-scripts.bundler.ts'
import { htmlShell, pageCsp, pageHeaders } from '../plugins/security-headers.ts'

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
const FRAME_CSP = pageCsp([
  ['script-src', "'self'"],
  ['style-src', `'sha256-${STYLE_HASH}'`],
  ['connect-src', "'self'"],
  ['img-src', "'self' data:"],
])

function framePage(scriptVersion: string): string {
  return htmlShell({
    head: `<style>${FRAME_STYLE}</style>
<script src="/dispatch/assets/frame.js?v=${scriptVersion}" defer></script>`,
    bodyClass: 'cp-busy',
    body: `<main aria-live="polite">
<h1 id="cp-title">Opening the course…</h1>
<p id="cp-text"></p>
<button id="cp-retry" type="button" hidden>Try again</button>
</main>
<noscript><p>This course needs JavaScript. Turn it on and reopen the course.</p></noscript>`,
  })
}

const DispatchParams = Type.Object({
  dispatchId: Type.String({ pattern: '^dsp_[A-Za-z0-9]{1,64}$' }),
})
const FrameQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 4096 })) })

/** What the frame page posts (src/browser/dispatch-wrapper/frame.ts). */
const LaunchBody = Type.Object({
  token: Type.String({ maxLength: 4096 }),
  /** The LMS origin the browser reported to the frame page (`event.origin`). */
  origin: Type.String({ maxLength: 2048 }),
  learner_id: Type.String({ maxLength: 4096 }),
  learner_name: Type.Optional(Type.String({ maxLength: 4096 })),
  /** The key the wrapper keeps in the client LMS for this learner (docs/dispatch.md). */
  learner_key: Type.Optional(Type.String({ maxLength: 256 })),
})

/**
 * Content origin: the dispatch frame page the wrapper package opens, its script, and the launch
 * call the page makes once the wrapper has said hello (docs/dispatch.md).
 */
export async function dispatchFrameRoutes(
  plain: FastifyInstance,
  { ctx }: { ctx: AppContext },
): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>()
  const { dispatchLaunches } = ctx.services
  const { frame } = await dispatchScripts()
  const frameEtag = `"${createHash('sha256').update(frame).digest('base64url').slice(0, 22)}"`
  const page = framePage(frameEtag.slice(1, 13))

  app.get(
    '/dispatch/:dispatchId/frame',
    // A malformed id is "no such page", like any other unknown URL.
    { schema: { params: DispatchParams, querystring: FrameQuery }, attachValidation: true },
    async (request, reply) => {
      if (request.validationError) return reply.callNotFound()
      return reply.headers(pageHeaders(FRAME_CSP)).send(page)
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

  app.post(
    '/dispatch/:dispatchId/launch',
    { bodyLimit: 16 * 1024, schema: { params: DispatchParams, body: LaunchBody } },
    async (request, reply) => {
      const { body } = request
      const result = await dispatchLaunches.launch(request.params.dispatchId, {
        token: body.token,
        origin: body.origin,
        learnerId: body.learner_id,
        learnerName: body.learner_name ?? '',
        learnerKey: body.learner_key || undefined,
        host: request.host,
      })
      return reply.header('cache-control', 'no-store').send(result)
    },
  )
}
