import { sql } from 'kysely'
import { newestFirstPage } from '../../infra/db/keyset.ts'
import type { Dialect, Executor } from '../../infra/db/schema.ts'
import type {
  DeliveryStatus,
  WebhookDeliveriesTable,
  WebhookDeliveryAttemptsTable,
} from '../../infra/db/tables/webhooks.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/** Rows per INSERT: 20 columns each keeps a statement well under both dialects' parameter caps. */
const INSERT_CHUNK = 500

/**
 * Inserts deliveries, skipping any (event, endpoint) pair that already has one, so running the
 * fan-out twice over the same events queues nothing new. Returns how many were inserted.
 */
export async function insertDeliveries(
  trx: Executor,
  rows: readonly WebhookDeliveriesTable[],
): Promise<number> {
  let inserted = 0
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const result = await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
      .executeTakeFirst()
    inserted += Number(result.numInsertedOrUpdatedRows ?? 0n)
  }
  return inserted
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
 * `insertDeliveries` for the fan-out's bulk: the varying columns travel as whole arrays — `unnest`
 * on PostgreSQL, one JSON parameter read with `json_each` on SQLite — instead of twenty bound
 * parameters per row, which is what made large fan-outs slow. Same skip-if-present rule.
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

export async function findDelivery(
  db: Executor,
  scope: TenantScope,
  id: string,
): Promise<WebhookDeliveriesTable | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .executeTakeFirst()
}

/** An endpoint's deliveries, newest first; `after` is the last row of the previous page. */
export async function listDeliveries(
  db: Executor,
  scope: TenantScope,
  endpointId: string,
  options: {
    limit: number
    status?: DeliveryStatus
    after?: { createdAt: string; id: string }
  },
): Promise<WebhookDeliveriesTable[]> {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
  if (options.status) query = query.where('status', '=', options.status)
  return newestFirstPage(query, options.after, options.limit).execute()
}

/** Attempt records of these deliveries, by delivery then number. */
export async function attemptsOf(
  db: Executor,
  scope: TenantScope,
  deliveryIds: readonly string[],
): Promise<WebhookDeliveryAttemptsTable[]> {
  if (deliveryIds.length === 0) return []
  return db
    .selectFrom('webhook_delivery_attempts')
    .selectAll()
    .where('delivery_id', 'in', deliveryIds)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .orderBy('delivery_id')
    .orderBy('number')
    .execute()
}

/**
 * dead_letter → queued, due now, with a fresh cycle of attempts (the spec's manual re-queue).
 * False when the delivery is not dead-lettered (or not in scope).
 */
export async function requeueDeadLetter(
  trx: Executor,
  scope: TenantScope,
  id: string,
  now: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'queued',
      attempts: 0,
      requeue_count: eb('requeue_count', '+', 1),
      next_attempt_at: now,
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('status', '=', 'dead_letter')
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
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
