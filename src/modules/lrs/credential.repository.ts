import { type KeysetPosition, newestFirstPage } from '../../infra/db/keyset.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { LrsCredentialsTable } from '../../infra/db/tables/lrs.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/** Stores a credential; the row must belong to `scope`. */
export async function insertCredential(
  db: Executor,
  scope: TenantScope,
  row: LrsCredentialsTable,
): Promise<void> {
  await db
    .insertInto('lrs_credentials')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
}

/** One page (`limit + 1` rows) of the credentials not issued to a launch, newest first. */
export async function listCredentials(
  db: Executor,
  scope: TenantScope,
  page: { limit: number; after?: KeysetPosition },
): Promise<LrsCredentialsTable[]> {
  const query = db
    .selectFrom('lrs_credentials')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('launch_id', 'is', null)
  return newestFirstPage(query, page.after, page.limit).execute()
}

/** Revokes one active credential; false when there is none of that id in `scope`. */
export async function revokeCredential(
  db: Executor,
  scope: TenantScope,
  id: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('lrs_credentials')
    .set({ revoked_at: at })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Revokes every active credential issued to one launch. */
export async function revokeLaunchCredentials(
  db: Executor,
  scope: TenantScope,
  launchId: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('lrs_credentials')
    .set({ revoked_at: at })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('launch_id', '=', launchId)
    .where('revoked_at', 'is', null)
    .execute()
}
