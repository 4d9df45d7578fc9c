import type { Executor, IdempotencyKeysTable } from '../../infra/db/schema.ts'
import type { TenantScope } from '../../modules/tenants/tenant-scope.ts'

/** Idempotency-Key records: per tenant and mode, so two tenants may use the same key. */

/** Forgets the scope's record of `key` if it was created before `before` (ISO time). */
export async function deleteExpiredKey(
  db: Executor,
  scope: TenantScope,
  key: string,
  before: string,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('key', '=', key)
    .where('created_at', '<', before)
    .execute()
}

/** Claims `key` for a running request; false when the scope already holds a record of it. */
export async function claimKey(
  db: Executor,
  scope: TenantScope,
  key: string,
  fingerprint: string,
  at: string,
): Promise<boolean> {
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({
      tenant_id: scope.tenantId,
      mode: scope.mode,
      key,
      fingerprint,
      status_code: null,
      response_body: null,
      created_at: at,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('key')
    .executeTakeFirst()
  return claimed !== undefined
}

export async function findKey(
  db: Executor,
  scope: TenantScope,
  key: string,
): Promise<IdempotencyKeysTable | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('key', '=', key)
    .executeTakeFirst()
}

/** Stores the response a replay of `key` will get. */
export async function storeResponse(
  db: Executor,
  scope: TenantScope,
  key: string,
  response: { status: number; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: response.status, response_body: response.body })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('key', '=', key)
    .execute()
}

/** Forgets the scope's record of `key` (its request failed and may be retried). */
export async function releaseKey(db: Executor, scope: TenantScope, key: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('key', '=', key)
    .execute()
}
