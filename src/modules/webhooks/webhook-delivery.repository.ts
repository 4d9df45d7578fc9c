import { type KeysetPosition, newestFirstPage } from '../../infra/db/keyset.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type {
  DeliveryStatus,
  WebhookDeliveriesTable,
  WebhookDeliveryAttemptsTable,
} from '../../infra/db/tables/webhooks.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/**
 * Inserts deliveries of `scope` (the rows' tenant and mode are the scope's), skipping any
 * (event, endpoint) pair that already has one.
 */
export async function insertScopedDeliveries(
  trx: Executor,
  scope: TenantScope,
  rows: readonly WebhookDeliveriesTable[],
): Promise<number> {
  const result = await trx
    .insertInto('webhook_deliveries')
    .values(rows.map((row) => ({ ...row, tenant_id: scope.tenantId, mode: scope.mode })))
    .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0n)
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
    after?: KeysetPosition
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
