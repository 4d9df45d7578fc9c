import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppContext } from '../../context.ts'
import { requirePermission } from '../../modules/accounts/roles.ts'
import { generateSecret } from '../../modules/webhooks/webhook-signature.ts'
import {
  DeliveryEnvelope,
  DeliveryList,
  DeliveryListQuery,
  DeliveryParams,
  RotatedSecret,
  UpdateWebhookBody,
  Webhook,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEnvelope,
  WebhookList,
  WebhookParams,
} from '../routes/webhooks/webhook.schemas.ts'
import { errorResponses, PaginationQuery } from '../schemas/common.ts'
import { DashboardSecurity, ModeQuery } from './customer.schemas.ts'
import { customerOf, customerScope } from './customer-auth.ts'

const Scope = Type.Union(
  ['packages', 'sessions', 'usage', 'dispatches', 'competency', 'all'].map((s) => Type.Literal(s)),
)

const DashboardCreateWebhook = Type.Object(
  {
    url: Type.String({ maxLength: 2048, description: 'HTTPS receiver URL' }),
    label: Type.Optional(Type.String({ maxLength: 200 })),
    eventScope: Type.Optional(Scope),
    secret: Type.Optional(
      Type.String({ minLength: 16, maxLength: 512, description: 'Default: a generated one' }),
    ),
  },
  { additionalProperties: false },
)

const ModeOnly = Type.Object({ mode: ModeQuery })

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * The dashboard's webhook jobs (issue 12): the same WebhookService calls as /api/v1/webhooks,
 * in the mode of the page's switch. Reading is for everyone; changes need an admin or owner.
 */
export const customerWebhookRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const { webhooks } = ctx.services
  app.addSchema(Webhook)
  app.addSchema(WebhookAttempt)
  app.addSchema(WebhookDelivery)
  const common = { tags: ['dashboard'], security: DashboardSecurity }
  const manager = (request: Parameters<typeof customerOf>[0]) => {
    requirePermission(customerOf(request).role, 'manage_content')
  }

  app.get(
    '/webhooks',
    {
      schema: {
        ...common,
        operationId: 'dashboardListWebhooks',
        summary: 'Webhook endpoints of the chosen mode, newest first',
        querystring: Type.Object({ ...PaginationQuery.properties, mode: ModeQuery }),
        response: { 200: WebhookList, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { mode, ...page } = request.query
      return webhooks.list(customerScope(request, mode), page)
    },
  )

  app.post(
    '/webhooks',
    {
      schema: {
        ...common,
        operationId: 'dashboardCreateWebhook',
        summary: 'Register an endpoint; the signing secret is in this answer only',
        querystring: ModeOnly,
        body: DashboardCreateWebhook,
        response: { 201: RotatedSecret, ...errorResponses(400, 401, 403, 422) },
      },
      preHandler: async (request) => manager(request),
    },
    async (request, reply) => {
      const secret = request.body.secret ?? generateSecret()
      const scope = customerScope(request, request.query.mode)
      const webhook = await webhooks.create(scope, { ...request.body, secret })
      return reply.status(201).send({ webhook, secret })
    },
  )

  app.get(
    '/webhooks/:webhookId',
    {
      schema: {
        ...common,
        operationId: 'dashboardGetWebhook',
        summary: 'A webhook endpoint',
        params: WebhookParams,
        querystring: ModeOnly,
        response: { 200: WebhookEnvelope, ...errorResponses(401, 404) },
      },
    },
    async (request) => ({
      webhook: await webhooks.get(
        customerScope(request, request.query.mode),
        request.params.webhookId,
      ),
    }),
  )

  app.patch(
    '/webhooks/:webhookId',
    {
      schema: {
        ...common,
        operationId: 'dashboardUpdateWebhook',
        summary: 'Change url, label, scope/events or status (active | disabled)',
        params: WebhookParams,
        querystring: ModeOnly,
        body: UpdateWebhookBody,
        response: { 200: WebhookEnvelope, ...errorResponses(400, 401, 403, 404, 422) },
      },
      preHandler: async (request) => manager(request),
    },
    async (request) => ({
      webhook: await webhooks.update(
        customerScope(request, request.query.mode),
        request.params.webhookId,
        request.body,
      ),
    }),
  )

  app.delete(
    '/webhooks/:webhookId',
    {
      schema: {
        ...common,
        operationId: 'dashboardDeleteWebhook',
        summary: 'Delete a webhook endpoint with its deliveries',
        params: WebhookParams,
        querystring: ModeOnly,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404) },
      },
      preHandler: async (request) => manager(request),
    },
    async (request, reply) => {
      await webhooks.delete(customerScope(request, request.query.mode), request.params.webhookId)
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/webhooks/:webhookId/rotate-secret',
    {
      schema: {
        ...common,
        operationId: 'dashboardRotateWebhookSecret',
        summary: 'Replace the signing secret (the old one signs for 24 h more); shown once',
        params: WebhookParams,
        querystring: ModeOnly,
        response: { 200: RotatedSecret, ...errorResponses(401, 403, 404) },
      },
      preHandler: async (request) => manager(request),
    },
    async (request) =>
      webhooks.rotateSecret(customerScope(request, request.query.mode), request.params.webhookId),
  )

  app.post(
    '/webhooks/:webhookId/test',
    {
      schema: {
        ...common,
        operationId: 'dashboardSendWebhookTest',
        summary: 'Queue a webhook.test event for this endpoint',
        params: WebhookParams,
        querystring: ModeOnly,
        response: { 202: DeliveryEnvelope, ...errorResponses(401, 403, 404, 409) },
      },
      preHandler: async (request) => manager(request),
    },
    async (request, reply) => {
      const scope = customerScope(request, request.query.mode)
      const delivery = await webhooks.deliveries.sendTest(scope, request.params.webhookId)
      return reply.status(202).send({ delivery })
    },
  )

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      schema: {
        ...common,
        operationId: 'dashboardListWebhookDeliveries',
        summary: 'Delivery history of an endpoint with every attempt, newest first',
        params: WebhookParams,
        querystring: Type.Intersect([DeliveryListQuery, ModeOnly]),
        response: { 200: DeliveryList, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { mode, ...query } = request.query
      return webhooks.deliveries.list(customerScope(request, mode), request.params.webhookId, query)
    },
  )

  app.post(
    '/webhook-deliveries/:deliveryId/requeue',
    {
      schema: {
        ...common,
        operationId: 'dashboardRequeueWebhookDelivery',
        summary: 'Re-queue a dead-lettered delivery (a fresh cycle of 5 attempts)',
        params: DeliveryParams,
        querystring: ModeOnly,
        response: { 200: DeliveryEnvelope, ...errorResponses(401, 403, 404, 409) },
      },
      preHandler: async (request) => manager(request),
    },
    async (request) => ({
      delivery: await webhooks.deliveries.requeue(
        customerScope(request, request.query.mode),
        request.params.deliveryId,
      ),
    }),
  )
}
