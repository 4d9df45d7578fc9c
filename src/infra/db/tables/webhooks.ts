import type { Mode } from '../schema.ts'

/** A customer's HTTPS receiver (the spec's "webhook endpoint"); `mode` is the events it gets. */
export interface WebhookEndpointsTable {
  id: string
  tenant_id: string
  mode: Mode
  label: string | null
  /** Normalised https URL, checked against the egress policy when stored. */
  url: string
  event_scope: 'packages' | 'sessions' | 'usage' | 'dispatches' | 'competency' | 'all'
  /** JSON array of event names narrowing the scope (from the `events` body form), or null. */
  event_types: string | null
  status: 'active' | 'disabled'
  /** The signing secret, encrypted with SECRET_KEY (see modules/webhooks/secret-box.ts). */
  secret_box: string
  /** The secret replaced by the last rotation; it keeps signing until `previous_secret_expires_at`. */
  previous_secret_box: string | null
  previous_secret_expires_at: string | null
  secret_rotated_at: string | null
  created_at: string
  updated_at: string
}

export type DeliveryStatus = 'queued' | 'delivered' | 'failed' | 'dead_letter'

/**
 * One event for one endpoint. The row is also the delivery work queue: an attempt leases it
 * (`lease_until`, fencing `lease_token`), and only the holder of the token records the outcome.
 */
export interface WebhookDeliveriesTable {
  id: string
  tenant_id: string
  /** The event's mode, fixed when queued. */
  mode: Mode
  endpoint_id: string
  /** The audit event's id (or a fresh evt_ id for a test event); unique with `endpoint_id`. */
  event_id: string
  event_type: string
  /** The exact JSON body sent on every attempt. */
  payload: string
  status: DeliveryStatus
  /** Attempts in the current cycle (≤ 5); a re-queue starts a new cycle. */
  attempts: number
  /** Attempts over all cycles; numbers the attempt records. */
  total_attempts: number
  requeue_count: number
  /** When the next attempt is due (queued or failed). */
  next_attempt_at: string
  lease_until: string | null
  lease_token: string | null
  /** 1 when the current claim took over an expired lease (the previous attempt was lost). */
  interrupted: number
  last_attempt_at: string | null
  last_status_code: number | null
  last_error: string | null
  delivered_at: string | null
  created_at: string
  updated_at: string
}

/** The record of one HTTP attempt of a delivery. */
export interface WebhookDeliveryAttemptsTable {
  delivery_id: string
  /** 1-based over the delivery's whole life (re-queues continue the numbering). */
  number: number
  tenant_id: string
  mode: Mode
  attempted_at: string
  outcome: 'delivered' | 'failed' | 'dead_letter' | 'interrupted'
  status_code: number | null
  latency_ms: number | null
  error: string | null
  /** The first bytes of the response body (UTF-8, capped). */
  response_excerpt: string | null
  response_truncated: number
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable
}
