import type { Executor, Mode } from '../../infra/db/schema.ts'
import type { TenantScope } from './tenant-scope.ts'

export interface ApiKeyRow {
  id: string
  tenant_id: string
  mode: Mode
  key_hint: string
  created_at: string
  revoked_at: string | null
}

/** Stores a key of `scope` (the row's tenant and mode are the scope's). */
export async function insertApiKey(
  db: Executor,
  scope: TenantScope,
  row: Omit<ApiKeyRow, 'tenant_id' | 'mode'> & { key_hash: string },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode, last_used_at: null })
    .execute()
}

/** The keys of one tenant and mode, oldest first, revoked ones included. */
export async function listApiKeys(db: Executor, scope: TenantScope): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'tenant_id', 'mode', 'key_hint', 'created_at', 'revoked_at'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

/** Returns whether a key of `scope` was revoked by this call (false for another tenant's key). */
export async function revokeApiKey(
  db: Executor,
  scope: TenantScope,
  id: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
