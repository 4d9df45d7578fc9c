import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyPluginAsync } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import { type MenuEntry, menuEntries, menuSession } from '../../modules/cmi5/course-menu.ts'
import { createCmi5Services } from '../../modules/cmi5/index.ts'
import type { JsonObject } from '../../modules/lrs/xapi-primitives.ts'
import { AppError } from '../../shared/app-error.ts'
import { scopeOf } from '../plugins/api-key-auth.ts'
import { ApiKeySecurity, errorResponses } from '../schemas/common.ts'

const Cmi5LaunchBody = Type.Object({
  user_id: Type.String({ minLength: 1, maxLength: 255, description: 'Learner identifier' }),
  learner_name: Type.Optional(Type.String({ maxLength: 255 })),
  au_index: Type.Optional(
    Type.Integer({ minimum: 0, description: 'The AU, by position in cmi5.xml; default 0' }),
  ),
  actor: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The xAPI Agent (with an account); default an account named by user_id',
      },
    ),
  ),
  registration: Type.Optional(
    Type.String({ format: 'uuid', description: 'Launch into this registration (new or existing)' }),
  ),
  launch_mode: Type.Optional(
    Type.Union([Type.Literal('Normal'), Type.Literal('Browse'), Type.Literal('Review')]),
  ),
  return_url: Type.Optional(Type.String({ maxLength: 2048 })),
})

const Cmi5LaunchResponse = Type.Object({
  session_id: Type.String(),
  launch_url: Type.String(),
  package_id: Type.String(),
  learner_id: Type.String(),
  attempt: Type.Integer(),
  expires_at: Type.String(),
  registration: Type.Optional(Type.String()),
  cmi5_session_id: Type.Optional(Type.String()),
})

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * cmi5 on the API origin: launching one AU with the spec's options, waiving an AU and
 * abandoning a cmi5 session (the LMS actions the cmi5 LMS Test Suite drives).
 */
export const cmi5ApiRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const services = createCmi5Services(ctx.db.kysely, ctx.clock, ctx.config)
  const common = { security: ApiKeySecurity, tags: ['cmi5'] }

  app.post(
    '/packages/:packageId/cmi5/launch',
    {
      schema: {
        ...common,
        summary: 'Launch an AU of a cmi5 course (or a Tin Can course) for a learner',
        params: Type.Object({ packageId: Type.String() }),
        body: Cmi5LaunchBody,
        response: { 200: Cmi5LaunchResponse, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const body = request.body
      return ctx.services.launches.launch(scopeOf(request), request.params.packageId, {
        userId: body.user_id,
        learnerName: body.learner_name,
        course: {
          auIndex: body.au_index,
          actor: body.actor as JsonObject | undefined,
          registration: body.registration,
          launchMode: body.launch_mode,
          returnUrl: body.return_url,
        },
      })
    },
  )

  app.post(
    '/cmi5/registrations/:registration/waive',
    {
      schema: {
        ...common,
        summary: 'Waive an AU of a registration (cmi5 §9.3.7)',
        params: Type.Object({ registration: Type.String() }),
        body: Type.Object({
          au_index: Type.Integer({ minimum: 0 }),
          reason: Type.Union([
            Type.Literal('Tested Out'),
            Type.Literal('Equivalent AU'),
            Type.Literal('Equivalent Outside Activity'),
            Type.Literal('Administrative'),
          ]),
        }),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { au_index, reason } = request.body
      await services.actions.waive(scopeOf(request), request.params.registration, au_index, reason)
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/cmi5/sessions/:cmi5SessionId/abandon',
    {
      schema: {
        ...common,
        summary: 'End a cmi5 session that will not terminate (cmi5 §9.3.6: abandoned)',
        params: Type.Object({ cmi5SessionId: Type.String() }),
        response: { 204: Type.Null(), ...errorResponses(401, 404, 409) },
      },
    },
    async (request, reply) => {
      await services.actions.abandon(scopeOf(request), request.params.cmi5SessionId)
      return reply.status(204).send(null)
    },
  )
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** The course menu: the AUs in course order under their blocks, each a link that launches it. */
function menuPage(title: string, entries: MenuEntry[], auHref: (index: number) => string): string {
  const items = entries
    .map((e) => {
      const where = e.path.length ? `<small>${escapeHtml(e.path.join(' › '))}</small> ` : ''
      const done = e.satisfied ? ' <span aria-label="satisfied">✓</span>' : ''
      return `<li>${where}<a href="${escapeHtml(auHref(e.index))}">${escapeHtml(e.title)}</a>${done}</li>`
    })
    .join('\n')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>${escapeHtml(title)}</h1><ol>${items}</ol></body></html>`
}

/**
 * The cmi5 fetch URL on the content origin, where the AU runs (cmi5 §8.2): always 200 with JSON,
 * `auth-token` once, an `error-code` after.
 */
export const cmi5ContentRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const services = createCmi5Services(ctx.db.kysely, ctx.clock, ctx.config)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 }, (_r, _b, done) => {
    done(null, null)
  })
  app.options('/cmi5/fetch/:launchId', async (_request, reply) =>
    reply
      .code(204)
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-methods', 'POST, OPTIONS')
      .header('access-control-allow-headers', 'Content-Type')
      .send(),
  )
  app.get<{ Params: { sessionId: string }; Querystring: { token?: string } }>(
    '/cmi5/menu/:sessionId',
    { schema: { hide: true } },
    async (request, reply) => {
      const { sessionId } = request.params
      const token = request.query.token ?? ''
      const session = await menuSession(services.deps, sessionId, token, request.host)
      const scope = { tenantId: session.tenant_id, mode: session.mode }
      const version = await services.versionOf(scope, session.version_id)
      const structure = version?.manifest.cmi5
      if (!version || !structure) throw new AppError('invalid_state', 'Not a cmi5 course')
      const entries = await menuEntries(services.deps, session, structure)
      const query = `token=${encodeURIComponent(token)}`
      const html = menuPage(version.manifest.title, entries, (i) => `${sessionId}/au/${i}?${query}`)
      return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html)
    },
  )
  app.get<{ Params: { sessionId: string; index: string }; Querystring: { token?: string } }>(
    '/cmi5/menu/:sessionId/au/:index',
    { schema: { hide: true } },
    async (request, reply) => {
      const { sessionId } = request.params
      const token = request.query.token ?? ''
      const session = await menuSession(services.deps, sessionId, token, request.host)
      const scope = { tenantId: session.tenant_id, mode: session.mode }
      const version = await services.versionOf(scope, session.version_id)
      if (!version?.manifest.cmi5) throw new AppError('invalid_state', 'Not a cmi5 course')
      const origin = `${request.protocol}://${request.host}`
      const launch = await services.launcher.launch(scope, session, version, {
        auIndex: Number(request.params.index),
        returnUrl: `${origin}/cmi5/menu/${sessionId}?token=${encodeURIComponent(token)}`,
      })
      return reply.header('cache-control', 'no-store').redirect(launch.launchUrl, 303)
    },
  )
  app.post<{ Params: { launchId: string }; Querystring: { k?: string } }>(
    '/cmi5/fetch/:launchId',
    { schema: { hide: true } },
    async (request, reply) => {
      const answer = await services.fetch(request.params.launchId, request.query.k ?? '')
      return reply
        .code(200)
        .header('access-control-allow-origin', '*')
        .header('cache-control', 'no-store')
        .type('application/json')
        .send(JSON.stringify(answer))
    },
  )
}
