import type { Executor } from '../../infra/db/schema.ts'
import type { DashboardRole } from '../../infra/db/tables/accounts.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/*
 * The team page's queries. Dashboard users belong to a tenant, not to a mode (one person sees
 * both test and live data), so these filter by the scope's tenant only.
 */

export function listUsers(db: Executor, scope: TenantScope) {
  return db
    .selectFrom('dashboard_users')
    .select(['id', 'email', 'role', 'created_at'])
    .where('tenant_id', '=', scope.tenantId)
    .orderBy('email')
    .execute()
}

/** One user of the tenant, or undefined (also for another tenant's user). */
export function findMember(db: Executor, scope: TenantScope, userId: string) {
  return db
    .selectFrom('dashboard_users')
    .select(['id', 'role'])
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', userId)
    .executeTakeFirst()
}

/**
 * Sets the role unless that would leave the tenant without an owner: one statement, so the
 * check and the change see the same rows. Returns whether a row changed.
 */
export async function setRoleKeepingAnOwner(
  db: Executor,
  scope: TenantScope,
  userId: string,
  role: DashboardRole,
  now: string,
): Promise<boolean> {
  let query = db
    .updateTable('dashboard_users')
    .set({ role, updated_at: now })
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', userId)
  if (role !== 'owner')
    query = query.where((eb) =>
      eb.or([eb('role', '!=', 'owner'), eb(otherOwners(db, scope, userId), '>', 0)]),
    )
  const result = await query.executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Signs the user out everywhere (before their row can be deleted). */
export async function deleteSessionsOf(db: Executor, scope: TenantScope, userId: string) {
  await db
    .deleteFrom('dashboard_sessions')
    .where('tenant_id', '=', scope.tenantId)
    .where('user_id', '=', userId)
    .execute()
}

/** Deletes the user unless they are the tenant's last owner; whether a row was deleted. */
export async function deleteUserKeepingAnOwner(
  db: Executor,
  scope: TenantScope,
  userId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('dashboard_users')
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('role', '!=', 'owner'), eb(otherOwners(db, scope, userId), '>', 0)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

function otherOwners(db: Executor, scope: TenantScope, userId: string) {
  return db
    .selectFrom('dashboard_users as o')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('o.tenant_id', '=', scope.tenantId)
    .where('o.role', '=', 'owner')
    .where('o.id', '!=', userId)
}
