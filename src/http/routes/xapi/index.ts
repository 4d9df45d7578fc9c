import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppContext } from '../../../context.ts'
import { cursorPosition, encodeCursor } from '../../../infra/db/keyset.ts'
import { createLrsServices } from '../../../modules/lrs/index.ts'
import { statementsCsv } from '../../../modules/lrs/statement.csv.ts'
import { parseStatementRequest } from '../../../modules/lrs/statement-query.ts'
import { AppError } from '../../../shared/app-error.ts'
import { scopeOf } from '../../plugins/api-key-auth.ts'
import { ApiKeySecurity, errorResponses, PaginationQuery } from '../../schemas/common.ts'
import {
  CreateCredentialBody,
  CreatedCredential,
  Credential,
  CredentialList,
  StatementList,
  StatementListQuery,
} from './xapi.schemas.ts'

/** `agent` as the xAPI JSON form, or a bare `mailto:` for convenience. */
function agentParam(agent: string | undefined): string | undefined {
  if (agent === undefined) return undefined
  return agent.startsWith('mailto:') ? JSON.stringify({ mbox: agent }) : agent
}

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * The LRS from the API: credentials for /xapi (created, listed, revoked) and a read of the
 * statement store with the same filters and keyset paging as the other lists.
 */
export const xapiRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const lrs = createLrsServices(ctx.db.kysely, ctx.clock)
  app.addSchema(Credential)
  const common = { tags: ['xapi'], security: ApiKeySecurity }

  app.post(
    '/xapi/credentials',
    {
      schema: {
        ...common,
        operationId: 'createXapiCredential',
        summary: "Create an LRS key/secret pair for the key's tenant and mode",
        body: CreateCredentialBody,
        response: { 201: CreatedCredential, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { secret, ...credential } = await lrs.credentials.create(scopeOf(request), request.body)
      const endpoint = `${ctx.config.publicUrl}/xapi/`
      return reply.status(201).send({ credential, secret, endpoint })
    },
  )

  app.get(
    '/xapi/credentials',
    {
      schema: {
        ...common,
        operationId: 'listXapiCredentials',
        summary: 'LRS credentials, newest first (secrets are never returned)',
        querystring: PaginationQuery,
        response: { 200: CredentialList, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) =>
      lrs.credentials.list(scopeOf(request), {
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  )

  app.delete(
    '/xapi/credentials/:credentialId',
    {
      schema: {
        ...common,
        operationId: 'revokeXapiCredential',
        summary: 'Revoke an LRS credential; it fails authentication from the next request on',
        params: Type.Object({ credentialId: Type.String() }),
        response: { 204: Type.Null(), ...errorResponses(401, 404, 429) },
      },
    },
    async (request, reply) => {
      await lrs.credentials.revoke(scopeOf(request), request.params.credentialId)
      return reply.status(204).send(null)
    },
  )

  app.get(
    '/xapi/statements',
    {
      schema: {
        ...common,
        operationId: 'listXapiStatements',
        summary: 'Statements from the built-in LRS, filtered by agent, verb, activity and time',
        description:
          'CSV with format=csv or Accept: text/csv: every matching statement (not one page), ' +
          'streamed, one row each.',
        querystring: StatementListQuery,
        produces: ['application/json', 'text/csv'],
        response: { 200: StatementList, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { cursor, limit, agent, format, ...filter } = request.query
      const params: Record<string, string> = { limit: String(limit ?? 50) }
      for (const [name, value] of Object.entries({ ...filter, agent: agentParam(agent) })) {
        if (value !== undefined) params[name] = value
      }
      const parsed = parseStatementRequest(params)
      if (parsed.kind !== 'query') throw new AppError('validation_failed', 'not a query')
      const position = cursorPosition(cursor)
      const after = position ? { stored: position.key, id: position.id } : undefined
      const wantsCsv =
        format === 'csv' ||
        (format === undefined && /\btext\/csv\b/.test(request.headers.accept ?? ''))
      if (wantsCsv) {
        // The CSV stream bypasses the JSON response schema (which describes the JSON form).
        reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="statements.csv"')
        const rows = statementsCsv(lrs.statements, scopeOf(request), { ...parsed.query, after })
        return reply.send(Readable.from(rows) as never)
      }
      const page = await lrs.statements.query(scopeOf(request), { ...parsed.query, after })
      return {
        statements: page.statements,
        next_cursor: page.next ? encodeCursor({ key: page.next.stored, id: page.next.id }) : null,
      }
    },
  )
}
