import { type Static, Type } from 'typebox'
import {
  NextCursor,
  NullableTimestamp,
  PaginationQuery,
  TenantIdField,
  Timestamp,
} from '../../schemas/common.ts'

const Scope = Type.Union(
  ['packages', 'sessions', 'usage', 'dispatches', 'competency', 'all'].map((s) => Type.Literal(s)),
  { description: 'Which events the endpoint receives' },
)
const Mode = Type.Union([Type.Literal('live'), Type.Literal('test')])
const EndpointStatus = Type.Union([Type.Literal('active'), Type.Literal('disabled')])
const DeliveryStatus = Type.Union(
  ['queued', 'delivered', 'failed', 'dead_letter'].map((s) => Type.Literal(s)),
)
const SecretText = Type.String({
  minLength: 16,
  maxLength: 512,
  description: 'Signing secret, 16 to 512 characters; never returned',
})
const EventNames = Type.Array(Type.String({ maxLength: 100 }), {
  maxItems: 50,
  description:
    'Earlier form: event names (or `*`, `session.*`…) instead of, or narrowing, eventScope',
})

export const Webhook = Type.Object(
  {
    id: Type.String({ description: 'Endpoint id (whk_…); sent as X-Webhook-ID' }),
    tenantId: Type.String(),
    label: Type.Union([Type.String(), Type.Null()]),
    url: Type.String(),
    status: EndpointStatus,
    eventScope: Scope,
    mode: Mode,
    signingSecretConfigured: Type.Boolean(),
    events: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'Event names narrowing the scope; null means every event of the scope',
    }),
    secretRotatedAt: NullableTimestamp,
    previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'Until then the previous secret also signs (rotation overlap)',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Webhook', title: 'Webhook' },
)
export type Webhook = Static<typeof Webhook>

export const WebhookAttempt = Type.Object(
  {
    number: Type.Integer({ description: 'Over the delivery’s life; re-queues continue it' }),
    attempted_at: Timestamp,
    outcome: Type.Union(
      ['delivered', 'failed', 'dead_letter', 'interrupted'].map((s) => Type.Literal(s)),
    ),
    status_code: Type.Union([Type.Integer(), Type.Null()]),
    latency_ms: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    response_excerpt: Type.Union([Type.String(), Type.Null()], {
      description: 'First 4 KB of the response body',
    }),
    response_truncated: Type.Boolean(),
  },
  { $id: 'WebhookAttempt', title: 'WebhookAttempt' },
)
export type WebhookAttempt = Static<typeof WebhookAttempt>

export const WebhookDelivery = Type.Object(
  {
    delivery_id: Type.String({
      description: 'dlv_…; the same on every attempt (X-Delivery-ID, webhook-id, body)',
    }),
    webhook_id: Type.String(),
    event: Type.String(),
    audit_event_id: Type.String(),
    mode: Mode,
    status: DeliveryStatus,
    attempts: Type.Integer({ description: 'Attempts in the current cycle' }),
    max_attempts: Type.Integer(),
    total_attempts: Type.Integer(),
    requeue_count: Type.Integer(),
    next_attempt_at: NullableTimestamp,
    last_attempt_at: NullableTimestamp,
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    delivered_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
    attempt_history: Type.Array(Type.Ref('WebhookAttempt')),
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery' },
)
/** With its `Type.Ref('WebhookAttempt')` resolved: a bare `Static` leaves a Ref `unknown`. */
export type WebhookDelivery = Static<
  typeof WebhookDelivery,
  { WebhookAttempt: typeof WebhookAttempt }
>

export const CreateWebhookBody = Type.Object({
  url: Type.String({ maxLength: 2048, description: 'HTTPS receiver URL' }),
  secret: Type.Optional(SecretText),
  signingSecret: Type.Optional(SecretText),
  label: Type.Optional(Type.String({ maxLength: 200 })),
  eventScope: Type.Optional(Scope),
  mode: Type.Optional(
    Type.Union([Type.Literal('live'), Type.Literal('test')], {
      description: "The key's mode (the default); another mode is refused",
    }),
  ),
  tenant_id: Type.Optional(TenantIdField),
  events: Type.Optional(EventNames),
  event_type: Type.Optional(Type.String({ maxLength: 100, description: 'Earlier form' })),
  description: Type.Optional(Type.String({ maxLength: 200, description: 'Earlier form of label' })),
})

export const UpdateWebhookBody = Type.Object({
  url: Type.Optional(Type.String({ maxLength: 2048 })),
  label: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  description: Type.Optional(Type.String({ maxLength: 200 })),
  eventScope: Type.Optional(Scope),
  events: Type.Optional(Type.Union([EventNames, Type.Null()])),
  event_type: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(EndpointStatus),
  mode: Type.Optional(Mode),
  tenant_id: Type.Optional(TenantIdField),
})

export const RotateSecretBody = Type.Union([
  Type.Object({
    secret: Type.Optional(SecretText),
    overlapSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 30 * 86_400,
        description: 'How long the old secret keeps signing (default 86 400)',
      }),
    ),
  }),
  Type.Null(),
])

export const WebhookParams = Type.Object({ webhookId: Type.String() })
export const DeliveryParams = Type.Object({ deliveryId: Type.String() })

export const DeliveryListQuery = Type.Intersect([
  PaginationQuery,
  Type.Object({ status: Type.Optional(DeliveryStatus) }),
])

export const WebhookEnvelope = Type.Object({ webhook: Type.Ref('Webhook') })
export type WebhookEnvelope = Static<typeof WebhookEnvelope, { Webhook: typeof Webhook }>
export const WebhookList = Type.Object({
  webhooks: Type.Array(Type.Ref('Webhook')),
  next_cursor: NextCursor,
})
export type WebhookList = Static<typeof WebhookList, { Webhook: typeof Webhook }>
export const RotatedSecret = Type.Object({
  webhook: Type.Ref('Webhook'),
  secret: Type.String({ description: 'The new signing secret, shown this once' }),
})
export type RotatedSecret = Static<typeof RotatedSecret, { Webhook: typeof Webhook }>
export const DeliveryEnvelope = Type.Object({ delivery: Type.Ref('WebhookDelivery') })
export const DeliveryList = Type.Object({
  deliveries: Type.Array(Type.Ref('WebhookDelivery')),
  next_cursor: NextCursor,
})
export type DeliveryList = Static<
  typeof DeliveryList,
  { WebhookDelivery: typeof WebhookDelivery; WebhookAttempt: typeof WebhookAttempt }
>
