import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import { requirePermission } from '../../modules/accounts/roles.ts'
import { CredentialService } from '../../modules/lrs/credential.service.ts'
import {
  CreateCredentialBody,
  CreatedCredential,
  Credential,
  CredentialList,
} from '../routes/xapi/xapi.schemas.ts'
import { errorResponses, PaginationQuery } from '../schemas/common.ts'
import { DashboardSecurity, ModeQuery } from './customer.schemas.ts'
import { customerOf, customerScope } from './customer-auth.ts'

const ModeOnly = Type.Object({ mode: ModeQuery })

const Endpoint = Type.String({
  description: 'The xAPI endpoint to configure in content and tools (HTTP Basic: key, secret)',
})

export const DashboardCredentialList = Type.Object({
  ...CredentialList.properties,
  endpoint: Endpoint,
})
export type DashboardCredentialList = Static<
  typeof DashboardCredentialList,
  { XapiCredential: typeof Credential }
>

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * The dashboard's LRS credentials (issue 12): the same CredentialService as
 * /api/v1/xapi/credentials, in the mode of the page's switch. A credential reads and writes the
 * tenant's learning records like an API key, so creating and revoking are for owners (roles.ts:
 * "owners manage users and API keys"); everyone may read the list, which never holds a secret.
 */
export const customerLrsCredentialRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const credentials = new CredentialService(ctx.db.kysely, ctx.clock)
  app.addSchema(Credential)
  const endpoint = `${ctx.config.publicUrl.replace(/\/$/, '')}/xapi/`
  const common = { tags: ['dashboard'], security: DashboardSecurity }
  const owner = async (request: Parameters<typeof customerOf>[0]) => {
    requirePermission(customerOf(request).role, 'manage_team')
  }

  app.get(
    '/lrs-credentials',
    {
      schema: {
        ...common,
        operationId: 'dashboardListLrsCredentials',
        summary: 'LRS credentials of the chosen mode, newest first, and the /xapi endpoint',
        description: 'Secrets are never returned; credentials issued to one launch are not listed.',
        querystring: Type.Object({ ...PaginationQuery.properties, mode: ModeQuery }),
        response: { 200: DashboardCredentialList, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { mode, limit, cursor } = request.query
      const page = await credentials.list(customerScope(request, mode), {
        limit: limit ?? 50,
        cursor,
      })
      return { ...page, endpoint }
    },
  )

  app.post(
    '/lrs-credentials',
    {
      schema: {
        ...common,
        operationId: 'dashboardCreateLrsCredential',
        summary: 'Create an LRS key/secret pair (owners only); the secret is in this answer only',
        querystring: ModeOnly,
        body: CreateCredentialBody,
        response: { 201: CreatedCredential, ...errorResponses(400, 401, 403) },
      },
      preHandler: owner,
    },
    async (request, reply) => {
      const scope = customerScope(request, request.query.mode)
      const { secret, ...credential } = await credentials.create(scope, request.body)
      return reply.status(201).send({ credential, secret, endpoint })
    },
  )

  app.delete(
    '/lrs-credentials/:credentialId',
    {
      schema: {
        ...common,
        operationId: 'dashboardRevokeLrsCredential',
        summary: 'Revoke an LRS credential (owners only); it fails from the next request on',
        params: Type.Object({ credentialId: Type.String({ maxLength: 64 }) }),
        querystring: ModeOnly,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
      preHandler: owner,
    },
    async (request, reply) => {
      await credentials.revoke(
        customerScope(request, request.query.mode),
        request.params.credentialId,
      )
      return reply.status(204).send(null)
    },
  )
}
