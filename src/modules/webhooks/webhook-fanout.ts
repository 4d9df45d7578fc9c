import type { Db } from '../../infra/db/database.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { WebhookEndpointsTable } from '../../infra/db/tables/webhooks.ts'
import type { Clock } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import { buildEnvelope, type EnvelopeSource } from './webhook-envelope.ts'
import { DELIVERED_EVENTS, type Subscription, subscriptionMatches } from './webhook-events.ts'
import {
  activeEndpointsOfTenants,
  insertNewDeliveries,
  markFannedOut,
  type NewDelivery,
  type PendingEvent,
  pendingEvents,
} from './webhook-jobs.cross-tenant.repository.ts'

/** Audit events read per transaction. */
export const FANOUT_BATCH = 1000

export interface FanoutBatchResult {
  /** Audit events marked as fanned out (delivered types or not). */
  events: number
  /** Deliveries created (pairs that already had one are not counted). */
  deliveries: number
}

interface PreparedEndpoint {
  row: WebhookEndpointsTable
  sub: Subscription
}

function prepare(row: WebhookEndpointsTable): PreparedEndpoint {
  return {
    row,
    sub: {
      mode: row.mode,
      eventScope: row.event_scope,
      eventTypes: row.event_types ? (JSON.parse(row.event_types) as string[]) : null,
    },
  }
}

/**
 * Fans out one batch of audit events not yet fanned out, in one transaction: one delivery per
 * (event, matching endpoint) — same tenant and mode, within the endpoint's scope and event list,
 * registered no later than the event occurred — then the events are marked. The unique
 * (event, endpoint) key makes a re-run over the same events insert nothing; on PostgreSQL
 * concurrent runs skip each other's events (SKIP LOCKED), on SQLite they queue on the write
 * lock. A crash rolls the batch back whole. `wake` runs in the transaction when deliveries were
 * created (it enqueues the senders, so they exist exactly when the deliveries do).
 */
export async function fanOutBatch(
  db: Db,
  clock: Clock,
  wake: (trx: Executor) => Promise<void>,
  batchSize = FANOUT_BATCH,
): Promise<FanoutBatchResult> {
  return db.kysely.transaction().execute(async (trx) => {
    const events = await pendingEvents(trx, db.dialect, batchSize)
    if (events.length === 0) return { events: 0, deliveries: 0 }
    const deliverable = events.filter((e) => DELIVERED_EVENTS[e.type])
    const byTenant = await endpointsByTenant(trx, [...new Set(deliverable.map((e) => e.tenant_id))])
    const now = clock.now().toISOString()
    const rows = deliverable.flatMap((event) => deliveriesOf(event, byTenant))
    const inserted = await insertNewDeliveries(trx, db.dialect, rows, now)
    await markFannedOut(
      trx,
      events.map((e) => e.seq),
      now,
    )
    if (inserted > 0) await wake(trx)
    return { events: events.length, deliveries: inserted }
  })
}

async function endpointsByTenant(
  trx: Executor,
  tenants: string[],
): Promise<Map<string, PreparedEndpoint[]>> {
  const byTenant = new Map<string, PreparedEndpoint[]>()
  for (const row of await activeEndpointsOfTenants(trx, tenants)) {
    const list = byTenant.get(row.tenant_id) ?? []
    list.push(prepare(row))
    byTenant.set(row.tenant_id, list)
  }
  return byTenant
}

/** One new delivery per endpoint the event is for (registered no later than it occurred). */
function deliveriesOf(
  event: PendingEvent,
  byTenant: Map<string, PreparedEndpoint[]>,
): NewDelivery[] {
  const targets = (byTenant.get(event.tenant_id) ?? []).filter(
    (ep) =>
      subscriptionMatches(ep.sub, event.type, event.mode) && ep.row.created_at <= event.occurred_at,
  )
  if (targets.length === 0) return []
  const source: EnvelopeSource = {
    id: event.id,
    tenantId: event.tenant_id,
    mode: event.mode,
    type: event.type,
    entityType: event.entity_type,
    entityId: event.entity_id,
    severity: event.severity,
    data: JSON.parse(event.data) as Record<string, unknown>,
    occurredAt: event.occurred_at,
  }
  return targets.map((ep) => {
    const id = newId('dlv')
    return {
      id,
      tenantId: event.tenant_id,
      mode: event.mode,
      endpointId: ep.row.id,
      eventId: event.id,
      eventType: event.type,
      payload: buildEnvelope(source, id),
    }
  })
}
