import { sql } from 'kysely'
import type { Dialect, Executor } from '../../infra/db/schema.ts'
import type { WebhookEndpointsTable } from '../../infra/db/tables/webhooks.ts'

/*
 * Cross-tenant by design: the webhook jobs serve every tenant and mode at once. The fan-out reads
 * the audit-event outbox of all tenants and creates each event's deliveries in the event's own
 * tenant and mode; the sender looks up the endpoints of deliveries it leased; the prune job walks
 * every endpoint's history. No API request reaches these functions.
 */

/** The next audit events not fanned out yet, oldest first; locked (skipping locked) on PostgreSQL. */
export function pendingEvents(trx: Executor, dialect: Dialect, batchSize: number) {
  const select = trx
    .selectFrom('audit_events')
    .select([
      'seq',
      'id',
      'tenant_id',
      'mode',
      'type',
      'entity_type',
      'entity_id',
      'severity',
      'data',
      'occurred_at',
    ])
    .where('fanned_out_at', 'is', null)
    .orderBy('seq')
    .limit(batchSize)
  return (dialect === 'postgres' ? select.forUpdate().skipLocked() : select).execute()
}

export type PendingEvent = Awaited<ReturnType<typeof pendingEvents>>[number]

/** Marks audit events (of any tenant) fanned out, by their outbox sequence numbers. */
export async function markFannedOut(
  trx: Executor,
  seqs: readonly number[],
  at: string,
): Promise<void> {
  if (seqs.length === 0) return
  await trx
    .updateTable('audit_events')
    .set({ fanned_out_at: at })
    .where('seq', 'in', seqs)
    .execute()
}

/** A delivery as the fan-out creates it: queued, due now, nothing attempted yet. */
export interface NewDelivery {
  id: string
  tenantId: string
  mode: 'live' | 'test'
  endpointId: string
  eventId: string
  eventType: string
  payload: string
}

/** Rows per statement of `insertNewDeliveries` (each is one parameter, not twenty). */
const BULK_CHUNK = 5000

/**
 * Inserts the fan-out's deliveries, each in its event's tenant and mode: the varying columns travel as whole arrays — `unnest`
 * on PostgreSQL, one JSON parameter read with `json_each` on SQLite — instead of twenty bound
 * parameters per row, which is what made large fan-outs slow. Any (event, endpoint) pair that
 * already has a delivery is skipped, so a re-run over the same events queues nothing new.
 */
export async function insertNewDeliveries(
  trx: Executor,
  dialect: Dialect,
  rows: readonly NewDelivery[],
  now: string,
): Promise<number> {
  let inserted = 0
  for (let i = 0; i < rows.length; i += BULK_CHUNK) {
    const chunk = rows.slice(i, i + BULK_CHUNK)
    const source =
      dialect === 'postgres'
        ? sql`select * from unnest(
            ${chunk.map((r) => r.id)}::text[], ${chunk.map((r) => r.tenantId)}::text[],
            ${chunk.map((r) => r.mode)}::text[], ${chunk.map((r) => r.endpointId)}::text[],
            ${chunk.map((r) => r.eventId)}::text[], ${chunk.map((r) => r.eventType)}::text[],
            ${chunk.map((r) => r.payload)}::text[]
          ) as t(id, tenant_id, mode, endpoint_id, event_id, event_type, payload)`
        : sql`select value ->> 0 as id, value ->> 1 as tenant_id, value ->> 2 as mode,
            value ->> 3 as endpoint_id, value ->> 4 as event_id, value ->> 5 as event_type,
            value ->> 6 as payload
          from json_each(${JSON.stringify(
            chunk.map((r) => [
              r.id,
              r.tenantId,
              r.mode,
              r.endpointId,
              r.eventId,
              r.eventType,
              r.payload,
            ]),
          )})`
    const result = await sql`insert into webhook_deliveries (id, tenant_id, mode, endpoint_id,
        event_id, event_type, payload, status, attempts, total_attempts, requeue_count,
        next_attempt_at, interrupted, created_at, updated_at)
      select s.id, s.tenant_id, s.mode, s.endpoint_id, s.event_id, s.event_type, s.payload,
        'queued', 0, 0, 0, ${now}, 0, ${now}, ${now}
      from (${source}) as s
      where true
      on conflict (event_id, endpoint_id) do nothing`.execute(trx)
    inserted += Number(result.numAffectedRows ?? 0n)
  }
  return inserted
}

/**
 * Active endpoints of these tenants (any mode), for the fan-out. The tenants come from the audit events
 * being fanned out, which is the scope of this system-side read.
 */
export async function activeEndpointsOfTenants(
  db: Executor,
  tenantIds: readonly string[],
): Promise<WebhookEndpointsTable[]> {
  if (tenantIds.length === 0) return []
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('tenant_id', 'in', tenantIds)
    .where('status', '=', 'active')
    .execute()
}

/** Endpoints by id, for the sender (the ids come from deliveries it has leased). */
export async function endpointsByIds(
  db: Executor,
  ids: readonly string[],
): Promise<WebhookEndpointsTable[]> {
  if (ids.length === 0) return []
  return db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', ids).execute()
}

/**
 * Deletes one endpoint's delivered and dead-lettered deliveries (with their attempts) created
 * before `before`, at most `limit`; returns the count. Walks the endpoint's history index, so no
 * index is kept on the status or update time just for pruning.
 */
export async function pruneFinishedDeliveries(
  db: Executor,
  endpointId: string,
  before: string,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where(
      'id',
      'in',
      db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpointId)
        .where('created_at', '<', before)
        .where('status', 'in', ['delivered', 'dead_letter'])
        .limit(limit),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Every endpoint's id, of every tenant, for the prune job's walk. */
export async function allEndpointIds(db: Executor): Promise<string[]> {
  return (await db.selectFrom('webhook_endpoints').select('id').execute()).map((r) => r.id)
}
