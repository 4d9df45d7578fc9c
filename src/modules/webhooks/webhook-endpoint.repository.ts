import { type KeysetPosition, newestFirstPage } from '../../infra/db/keyset.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { WebhookEndpointsTable } from '../../infra/db/tables/webhooks.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

export type EndpointChanges = Partial<
  Omit<WebhookEndpointsTable, 'id' | 'tenant_id' | 'created_at'>
>

/** Stores an endpoint of `scope` (the row's tenant and mode are the scope's). */
export async function insertEndpoint(
  trx: Executor,
  scope: TenantScope,
  row: WebhookEndpointsTable,
): Promise<void> {
  await trx
    .insertInto('webhook_endpoints')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
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
  options: { limit: number; after?: KeysetPosition },
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
