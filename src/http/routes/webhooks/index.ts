import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppContext } from '../../../context.ts'
import { scopeOf } from '../../plugins/api-key-auth.ts'
import { ApiKeySecurity, errorResponses, PaginationQuery } from '../../schemas/common.ts'
import {
  CreateWebhookBody,
  DeliveryEnvelope,
  DeliveryList,
  DeliveryListQuery,
  DeliveryParams,
  RotatedSecret,
  RotateSecretBody,
  UpdateWebhookBody,
  Webhook,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEnvelope,
  WebhookList,
  WebhookParams,
} from './webhook.schemas.ts'

// Long on purpose: a route plugin: one short registration per endpoint of this resource.
/**
 * Webhook endpoints and their deliveries: `POST /webhooks` exactly as the spec (plus its earlier
 * body forms), and the list/read/update/delete/rotate/test/history/re-queue operations users
 * expect. Thin: validate → one service call → shape.
 */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (
  app,
  { ctx },
) => {
  const { webhooks } = ctx.services
  app.addSchema(Webhook)
  app.addSchema(WebhookAttempt)
  app.addSchema(WebhookDelivery)
  const common = { tags: ['webhooks'], security: ApiKeySecurity }

  app.post(
    '/webhooks',
    {
      schema: {
        ...common,
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint',
        description:
          'The URL must be https and must not resolve to a private, loopback, link-local or ' +
          'metadata address. The secret signs every delivery and is never returned.',
        body: CreateWebhookBody,
        response: { 201: WebhookEnvelope, ...errorResponses(400, 401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const webhook = await webhooks.create(scopeOf(request), request.body)
      return reply.status(201).send({ webhook })
    },
  )

  app.get(
    '/webhooks',
    {
      schema: {
        ...common,
        operationId: 'listWebhooks',
        summary: "List the key's webhook endpoints, newest first",
        querystring: PaginationQuery,
        response: { 200: WebhookList, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => webhooks.list(scopeOf(request), request.query),
  )

  app.get(
    '/webhooks/:webhookId',
    {
      schema: {
        ...common,
        operationId: 'getWebhook',
        summary: 'A webhook endpoint',
        params: WebhookParams,
        response: { 200: WebhookEnvelope, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => ({
      webhook: await webhooks.get(scopeOf(request), request.params.webhookId),
    }),
  )

  app.patch(
    '/webhooks/:webhookId',
    {
      schema: {
        ...common,
        operationId: 'updateWebhook',
        summary: 'Change url, label, scope/events or status (active | disabled)',
        description:
          'A disabled endpoint gets no new deliveries; its queued ones wait until it is active again.',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookEnvelope, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request) => ({
      webhook: await webhooks.update(scopeOf(request), request.params.webhookId, request.body),
    }),
  )

  app.delete(
    '/webhooks/:webhookId',
    {
      schema: {
        ...common,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint with its deliveries',
        params: WebhookParams,
        response: { 204: Type.Null(), ...errorResponses(401, 404, 429) },
      },
    },
    async (request, reply) => {
      await webhooks.delete(scopeOf(request), request.params.webhookId)
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/webhooks/:webhookId/rotate-secret',
    {
      // The answer holds the new secret: never keep it for Idempotency-Key replays.
      config: { idempotent: false },
      schema: {
        ...common,
        operationId: 'rotateWebhookSecret',
        summary: 'Replace the signing secret; the new one is shown once',
        description:
          'The previous secret keeps signing alongside the new one for overlapSeconds ' +
          '(default 24 h): each signature header then carries two values.',
        params: WebhookParams,
        body: RotateSecretBody,
        response: { 200: RotatedSecret, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const body = request.body ?? {}
      return webhooks.rotateSecret(scopeOf(request), request.params.webhookId, body)
    },
  )

  app.post(
    '/webhooks/:webhookId/test',
    {
      schema: {
        ...common,
        operationId: 'sendWebhookTestEvent',
        summary: 'Queue a webhook.test event for this endpoint',
        params: WebhookParams,
        response: { 202: DeliveryEnvelope, ...errorResponses(401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const delivery = await webhooks.deliveries.sendTest(
        scopeOf(request),
        request.params.webhookId,
      )
      return reply.status(202).send({ delivery })
    },
  )

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      schema: {
        ...common,
        operationId: 'listWebhookDeliveries',
        summary: 'Delivery history of an endpoint with every attempt, newest first',
        params: WebhookParams,
        querystring: DeliveryListQuery,
        response: { 200: DeliveryList, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) =>
      webhooks.deliveries.list(scopeOf(request), request.params.webhookId, request.query),
  )

  app.get(
    '/webhook-deliveries/:deliveryId',
    {
      schema: {
        ...common,
        operationId: 'getWebhookDelivery',
        summary: 'A delivery with every attempt',
        params: DeliveryParams,
        response: { 200: DeliveryEnvelope, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => ({
      delivery: await webhooks.deliveries.get(scopeOf(request), request.params.deliveryId),
    }),
  )

  app.post(
    '/webhook-deliveries/:deliveryId/requeue',
    {
      schema: {
        ...common,
        operationId: 'requeueWebhookDelivery',
        summary: 'Re-queue a dead-lettered delivery (a fresh cycle of 5 attempts)',
        params: DeliveryParams,
        response: { 200: DeliveryEnvelope, ...errorResponses(401, 404, 409, 429) },
      },
    },
    async (request) => ({
      delivery: await webhooks.deliveries.requeue(scopeOf(request), request.params.deliveryId),
    }),
  )
}
