import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import type { AccountService } from '../../modules/accounts/account.service.ts'
import { DashboardKeys } from '../../modules/accounts/dashboard-keys.service.ts'
import { errorResponses, Timestamp } from '../schemas/common.ts'
import { DashboardSecurity, PendingInvite, Role } from './customer.schemas.ts'
import { customerOf } from './customer-auth.ts'

const Mode = Type.Union([Type.Literal('test'), Type.Literal('live')])
const UserParams = Type.Object({ userId: Type.String({ maxLength: 64 }) })
const KeyParams = Type.Object({ keyId: Type.String({ maxLength: 64 }) })
const InviteParams = Type.Object({ inviteId: Type.String({ maxLength: 64 }) })

const TeamUser = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  created_at: Timestamp,
})
export type TeamUser = Static<typeof TeamUser>
const UserList = Type.Object({ users: Type.Array(TeamUser) })

export const KeyView = Type.Object({
  id: Type.String(),
  mode: Mode,
  hint: Type.String({ description: 'The last characters of the key' }),
  created_at: Timestamp,
  revoked_at: Type.Union([Timestamp, Type.Null()]),
})
export type KeyView = Static<typeof KeyView>

export const CreatedKey = Type.Object({
  id: Type.String(),
  mode: Mode,
  key: Type.String({ description: 'Shown once, never stored' }),
})
export type CreatedKey = Static<typeof CreatedKey>

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * The team and API-key pages: everyone signed in reads the team; admins and owners list and
 * revoke pending invites and change roles (owners' only by owners), remove users (never the last
 * owner); owners list, create and revoke API keys.
 */
export const customerTeamRoutes: FastifyPluginAsyncTypebox<{
  ctx: AppContext
  accounts: AccountService
}> = async (app, { ctx, accounts }) => {
  const keys = new DashboardKeys(ctx.services.tenants)
  const common = { tags: ['dashboard'], security: DashboardSecurity }

  app.get(
    '/users',
    {
      schema: {
        ...common,
        operationId: 'dashboardListUsers',
        summary: "The tenant's dashboard users",
        response: { 200: UserList, ...errorResponses(401) },
      },
    },
    async (request) => ({ users: await accounts.listUsers(customerOf(request)) }),
  )

  app.patch(
    '/users/:userId',
    {
      schema: {
        ...common,
        operationId: 'dashboardChangeRole',
        summary: "Change a user's role (owners only; the last owner stays an owner)",
        params: UserParams,
        body: Type.Object({ role: Role }, { additionalProperties: false }),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await accounts.changeRole(customerOf(request), request.params.userId, request.body.role)
      return reply.status(204).send(null)
    },
  )

  app.delete(
    '/users/:userId',
    {
      schema: {
        ...common,
        operationId: 'dashboardRemoveUser',
        summary: 'Remove a user and sign them out (owners only; never the last owner)',
        params: UserParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await accounts.removeUser(customerOf(request), request.params.userId)
      return reply.status(204).send(null)
    },
  )

  app.get(
    '/invites',
    {
      schema: {
        ...common,
        operationId: 'dashboardListInvites',
        summary:
          'Pending invites, newest first (admins: those for admins and viewers; owners: all)',
        description: 'Unused, unexpired invite links; never the links themselves.',
        response: {
          200: Type.Object({ invites: Type.Array(PendingInvite) }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) => ({ invites: await accounts.listInvites(customerOf(request)) }),
  )

  app.delete(
    '/invites/:inviteId',
    {
      schema: {
        ...common,
        operationId: 'dashboardRevokeInvite',
        summary: 'Revoke a pending invite: its link stops working (owner invites: owners only)',
        params: InviteParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await accounts.revokeInvite(customerOf(request), request.params.inviteId)
      return reply.status(204).send(null)
    },
  )

  app.get(
    '/api-keys',
    {
      schema: {
        ...common,
        operationId: 'dashboardListApiKeys',
        summary: "The tenant's API keys, test and live (owners only; never the keys themselves)",
        response: { 200: Type.Object({ keys: Type.Array(KeyView) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ keys: await keys.list(customerOf(request)) }),
  )

  app.post(
    '/api-keys',
    {
      schema: {
        ...common,
        operationId: 'dashboardCreateApiKey',
        summary: 'Create an API key (owners only); the key is in this answer only',
        body: Type.Object({ mode: Mode }, { additionalProperties: false }),
        response: {
          201: CreatedKey,
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const created = await keys.create(customerOf(request), request.body.mode)
      return reply.status(201).send({ id: created.id, mode: created.mode, key: created.key })
    },
  )

  app.delete(
    '/api-keys/:keyId',
    {
      schema: {
        ...common,
        operationId: 'dashboardRevokeApiKey',
        summary: 'Revoke an API key at once (owners only)',
        params: KeyParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await keys.revoke(customerOf(request), request.params.keyId)
      return reply.status(204).send(null)
    },
  )
}
