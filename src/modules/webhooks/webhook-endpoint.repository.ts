import { newestFirstPage } from '../../infra/db/keyset.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { WebhookEndpointsTable } from '../../infra/db/tables/webhooks.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

export type EndpointChanges = Partial<
  Omit<WebhookEndpointsTable, 'id' | 'tenant_id' | 'created_at'>
>

export async function insertEndpoint(trx: Executor, row: WebhookEndpointsTable): Promise<void> {
  await trx.insertInto('webhook_endpoints').values(row).execute()
}

export async function findEndpoint(
  db: Executor,
  scope: TenantScope,
  id: string,
): Promise<WebhookEndpointsTable | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .executeTakeFirst()
}

/** Newest first; `after` is the (created_at, id) of the last row of the previous page. */
export async function listEndpoints(
  db: Executor,
  scope: TenantScope,
  options: { limit: number; after?: { createdAt: string; id: string } },
): Promise<WebhookEndpointsTable[]> {
  const query = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
  return newestFirstPage(query, options.after, options.limit).execute()
}

export async function updateEndpoint(
  trx: Executor,
  scope: TenantScope,
  id: string,
  changes: EndpointChanges,
): Promise<boolean> {
  const result = await trx
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('id', '=', id)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/** Deletes the endpoint with its deliveries and their attempts (cascade). */
export async function deleteEndpoint(
  trx: Executor,
  scope: TenantScope,
  id: string,
): Promise<boolean> {
  const result = await trx
    .deleteFrom('webhook_endpoints')
    .where('id', '=', id)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .executeTakeFirst()
  return result.numDeletedRows === 1n
}

/**
 * Active endpoints of these tenants, for the fan-out. The tenants come from the audit events
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
