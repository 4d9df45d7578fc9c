import type { Mode } from '../../infra/db/schema.ts'
import { DELIVERED_EVENTS } from './webhook-events.ts'

/** An audit event as the envelope needs it (a row of `audit_events`, data parsed). */
export interface EnvelopeSource {
  id: string
  tenantId: string
  mode: Mode
  type: string
  entityType: string | null
  entityId: string | null
  severity: 'info' | 'warn'
  data: Record<string, unknown>
  occurredAt: string
}

/** The spec's session fields, in its order; absent ones are sent as null. */
const SESSION_FIELDS = [
  'session_id',
  'package_id',
  'learner_id',
  'completion_status',
  'success_status',
  'progress_percent',
  'score',
  'session_time',
  'time_spent_seconds',
  'updated_at',
] as const

const BASELINE_FIELDS = new Set([
  'audit_event_id',
  'event_plane',
  'entity_type',
  'entity_id',
  'severity',
])

const NULL_SCORE = { scaled: null, raw: null, min: null, max: null }

function eventData(source: EnvelopeSource): Record<string, unknown> {
  const shape = DELIVERED_EVENTS[source.type]
  const nullEntity = shape?.nullEntity === true
  // event_plane says which plane (live or test) the event belongs to: test endpoints only ever
  // receive events marked "test" here.
  const data: Record<string, unknown> = {
    audit_event_id: source.id,
    event_plane: source.mode,
    entity_type: nullEntity ? null : source.entityType,
    entity_id: nullEntity ? null : source.entityId,
    severity: source.severity,
  }
  const kind = shape?.data ?? 'producer'
  if (kind === 'baseline') return data
  if (kind === 'session') {
    for (const field of SESSION_FIELDS) {
      const value = source.data[field]
      data[field] =
        field === 'score' ? { ...NULL_SCORE, ...(isObject(value) ? value : {}) } : (value ?? null)
    }
  }
  for (const [key, value] of Object.entries(source.data)) {
    if (!BASELINE_FIELDS.has(key) && !(key in data)) data[key] = value
  }
  return data
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The JSON body of a delivery, exactly as the spec's envelope: `event`, `tenant_id`, `data`
 * (baseline fields first), `timestamp` (when the audit event occurred) and `delivery_id`. It is
 * built once when the delivery is queued and sent byte for byte on every attempt.
 */
export function buildEnvelope(source: EnvelopeSource, deliveryId: string): string {
  return JSON.stringify({
    event: source.type,
    tenant_id: source.tenantId,
    data: eventData(source),
    timestamp: source.occurredAt,
    delivery_id: deliveryId,
  })
}
