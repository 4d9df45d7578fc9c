import type { Executor } from '../../infra/db/schema.ts'
import type { DashboardRole } from '../../infra/db/tables/accounts.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/*
 * The team page's queries.
 *
 * Scope rule (DESIGN §5, test/unit/architecture/tenant-scope.test.ts): every function takes
 * `(db, scope: TenantScope, …)` and filters by `scope.tenantId`. Dashboard users, sessions and
 * invites are tenant-wide, shared by both modes (one person reads test and live data; the
 * tables have no `mode` column), so `scope.mode` is deliberately not used here: a user of one
 * tenant is the same user whichever mode the dashboard's switch shows.
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

/**
 * Locks the tenant's owner rows until the transaction ends (a no-op UPDATE takes PostgreSQL's row
 * locks; SQLite runs one write transaction at a time anyway), so changes of the team that could
 * remove an owner run one after the other and each sees the other's result.
 */
export async function lockOwners(db: Executor, scope: TenantScope): Promise<void> {
  await db
    .updateTable('dashboard_users')
    .set((eb) => ({ role: eb.ref('role') }))
    .where('tenant_id', '=', scope.tenantId)
    .where('role', '=', 'owner')
    .execute()
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

/**
 * The tenant's invites nobody has used yet and that still work at `now` (never their tokens: only
 * the token's hash is stored, and it doubles as the invite's id); `roles` limits which.
 */
export function listPendingInvites(
  db: Executor,
  scope: TenantScope,
  now: string,
  roles: readonly DashboardRole[],
) {
  return db
    .selectFrom('dashboard_invites')
    .select(['token_hash', 'email', 'role', 'created_by', 'created_at', 'expires_at'])
    .where('tenant_id', '=', scope.tenantId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .where('role', 'in', roles)
    .orderBy('created_at', 'desc')
    .execute()
}

/** One pending invite of the tenant by its token's hash, or undefined (also another tenant's). */
export function findPendingInvite(db: Executor, scope: TenantScope, tokenHash: string) {
  return db
    .selectFrom('dashboard_invites')
    .select(['token_hash', 'role'])
    .where('tenant_id', '=', scope.tenantId)
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .executeTakeFirst()
}

/** Deletes an unused invite, so its link stops working; whether a row was deleted. */
export async function deletePendingInvite(
  db: Executor,
  scope: TenantScope,
  tokenHash: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('dashboard_invites')
    .where('tenant_id', '=', scope.tenantId)
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
