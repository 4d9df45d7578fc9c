import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppContext } from '../../../context.ts'
import { scopeOf } from '../../plugins/api-key-auth.ts'
import { ApiKeySecurity, errorResponses } from '../../schemas/common.ts'
import {
  LaunchBody,
  LaunchResponse,
  SessionDetail,
  SessionList,
  SessionListQuery,
} from './session.schemas.ts'

export const sessionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const { launches, sessions } = ctx.services
  app.addSchema(SessionDetail)
  const common = { security: ApiKeySecurity }

  app.post(
    '/packages/:packageId/launch',
    {
      schema: {
        ...common,
        tags: ['sessions'],
        operationId: 'launchSession',
        summary: "Create or resume a learner's session and get a signed launch URL",
        params: Type.Object({ packageId: Type.String() }),
        body: LaunchBody,
        response: { 200: LaunchResponse, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) =>
      launches.launch(scopeOf(request), request.params.packageId, {
        userId: request.body.user_id,
        learnerName: request.body.learner_name,
        sessionId: request.body.session_id,
      }),
  )

  app.get(
    '/sessions/:sessionId',
    {
      schema: {
        ...common,
        tags: ['sessions'],
        operationId: 'getSession',
        summary: 'A session with its live progress and runtime data',
        params: Type.Object({ sessionId: Type.String() }),
        response: { 200: Type.Ref('SessionDetail'), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => sessions.get(scopeOf(request), request.params.sessionId),
  )

  app.get(
    '/sessions',
    {
      schema: {
        ...common,
        tags: ['sessions'],
        operationId: 'listSessions',
        summary: 'Sessions, filtered and paged; CSV with format=csv or Accept: text/csv',
        description: "include=cmi_data adds each session's runtime data to the JSON form.",
        querystring: SessionListQuery,
        produces: ['application/json', 'text/csv'],
        response: { 200: SessionList, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { format, limit, cursor, include, ...filter } = request.query
      const wantsCsv =
        format === 'csv' ||
        (format === undefined && /\btext\/csv\b/.test(request.headers.accept ?? ''))
      if (!wantsCsv) {
        const with_ = include ? [include] : []
        return sessions.list(scopeOf(request), { ...filter, limit, cursor, include: with_ })
      }
      // The CSV stream bypasses the JSON response schema (which describes the JSON form).
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="sessions.csv"')
      return reply.send(Readable.from(sessions.csv(scopeOf(request), filter)) as never)
    },
  )
}
