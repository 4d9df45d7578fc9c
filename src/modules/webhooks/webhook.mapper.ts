import type {
  WebhookDeliveriesTable,
  WebhookDeliveryAttemptsTable,
  WebhookEndpointsTable,
} from '../../infra/db/tables/webhooks.ts'
import { MAX_ATTEMPTS } from './delivery-policy.ts'

/** The spec's webhook object (camelCase there), plus what users expect to see beyond it. */
export interface WebhookView {
  id: string
  tenantId: string
  label: string | null
  url: string
  status: 'active' | 'disabled'
  eventScope: WebhookEndpointsTable['event_scope']
  mode: 'live' | 'test'
  signingSecretConfigured: boolean
  /** Event names narrowing the scope, or null for every event of the scope. */
  events: string[] | null
  secretRotatedAt: string | null
  /** Until then the previous secret signs too; null outside a rotation overlap. */
  previousSecretExpiresAt: string | null
  createdAt: string
  updatedAt: string
}

export function toWebhookView(row: WebhookEndpointsTable, now: Date): WebhookView {
  const overlap =
    row.previous_secret_expires_at && Date.parse(row.previous_secret_expires_at) > now.getTime()
      ? row.previous_secret_expires_at
      : null
  return {
    id: row.id,
    tenantId: row.tenant_id,
    label: row.label,
    url: row.url,
    status: row.status,
    eventScope: row.event_scope,
    mode: row.mode,
    signingSecretConfigured: row.secret_box.length > 0,
    events: row.event_types ? (JSON.parse(row.event_types) as string[]) : null,
    secretRotatedAt: row.secret_rotated_at,
    previousSecretExpiresAt: overlap,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export interface AttemptView {
  number: number
  attempted_at: string
  outcome: WebhookDeliveryAttemptsTable['outcome']
  status_code: number | null
  latency_ms: number | null
  error: string | null
  response_excerpt: string | null
  response_truncated: boolean
}

/** A delivery as the API shows it (snake_case, like the spec's `delivery_id`). */
export interface DeliveryView {
  delivery_id: string
  webhook_id: string
  event: string
  audit_event_id: string
  mode: 'live' | 'test'
  status: WebhookDeliveriesTable['status']
  /** Attempts in the current cycle, at most `max_attempts`. */
  attempts: number
  max_attempts: number
  total_attempts: number
  requeue_count: number
  /** When the next attempt is due; null once delivered or dead-lettered. */
  next_attempt_at: string | null
  last_attempt_at: string | null
  last_status_code: number | null
  last_error: string | null
  delivered_at: string | null
  created_at: string
  updated_at: string
  attempt_history: AttemptView[]
}

export function toAttemptView(row: WebhookDeliveryAttemptsTable): AttemptView {
  return {
    number: Number(row.number),
    attempted_at: row.attempted_at,
    outcome: row.outcome,
    status_code: row.status_code === null ? null : Number(row.status_code),
    latency_ms: row.latency_ms === null ? null : Number(row.latency_ms),
    error: row.error,
    response_excerpt: row.response_excerpt,
    response_truncated: Number(row.response_truncated) === 1,
  }
}

export function toDeliveryView(
  row: WebhookDeliveriesTable,
  attempts: readonly WebhookDeliveryAttemptsTable[],
): DeliveryView {
  const pending = row.status === 'queued' || row.status === 'failed'
  return {
    delivery_id: row.id,
    webhook_id: row.endpoint_id,
    event: row.event_type,
    audit_event_id: row.event_id,
    mode: row.mode,
    status: row.status,
    attempts: Number(row.attempts),
    max_attempts: MAX_ATTEMPTS,
    total_attempts: Number(row.total_attempts),
    requeue_count: Number(row.requeue_count),
    next_attempt_at: pending ? row.next_attempt_at : null,
    last_attempt_at: row.last_attempt_at,
    last_status_code: row.last_status_code === null ? null : Number(row.last_status_code),
    last_error: row.last_error,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    attempt_history: attempts.map(toAttemptView),
  }
}
