import type { Insertable } from 'kysely'
import type { Executor } from '../../infra/db/schema.ts'
import type {
  DashboardInvitesTable,
  DashboardSessionsTable,
  DashboardUsersTable,
} from '../../infra/db/tables/accounts.ts'

/*
 * Cross-tenant by design, and outside the TenantScope rule: dashboard accounts sit above the
 * mode (one user sees a tenant's live and test data, so these rows carry `tenant_id` but no
 * `mode`), and they are found by secrets (a session id's hash, an invite token's hash) or by
 * e-mail at sign-in, before any tenant is known. Every read by tenant still filters by it.
 */

/** Sign-in: the user with this e-mail, in any tenant (the tenant is not known yet). */
export function findUserByEmail(db: Executor, email: string) {
  return db.selectFrom('dashboard_users').selectAll().where('email', '=', email).executeTakeFirst()
}

/** One of the tenant's users; another tenant's id finds nothing. */
export function findUser(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('dashboard_users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** How many users the tenant has (both modes share them). */
export function countUsers(db: Executor, tenantId: string) {
  return db
    .selectFrom('dashboard_users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow()
}

/** Stores a user; the row names its tenant (users have no mode). */
export async function insertUser(db: Executor, row: Insertable<DashboardUsersTable>) {
  await db.insertInto('dashboard_users').values(row).execute()
}

/** Sets a user's password hash, within the user's tenant. */
export async function updatePassword(
  db: Executor,
  tenantId: string,
  userId: string,
  passwordHash: string,
  now: string,
) {
  await db
    .updateTable('dashboard_users')
    .set({ password_hash: passwordHash, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .execute()
}

/** Stores a signed-in session; it is found again only by its id's hash. */
export async function insertSession(db: Executor, row: DashboardSessionsTable) {
  await db.insertInto('dashboard_sessions').values(row).execute()
}

/**
 * The session with its user, in one read (every /api/customer request makes it): found by the
 * cookie's hash, which is how the request's tenant becomes known.
 */
export function findSession(db: Executor, idHash: string) {
  return db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('dashboard_users as u', 'u.id', 's.user_id')
    .select([
      's.id_hash',
      's.csrf_token',
      's.last_seen_at',
      's.expires_at',
      'u.id as user_id',
      'u.tenant_id',
      'u.email',
      'u.role',
    ])
    .where('s.id_hash', '=', idHash)
    .executeTakeFirst()
}

/** Records activity on the session with this id hash (a secret only its holder knows). */
export async function touchSession(db: Executor, idHash: string, now: string) {
  await db
    .updateTable('dashboard_sessions')
    .set({ last_seen_at: now })
    .where('id_hash', '=', idHash)
    .execute()
}

/** Signs out the session with this id hash (a secret only its holder knows). */
export async function deleteSession(db: Executor, idHash: string) {
  await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute()
}

/**
 * Signs the user out everywhere except (optionally) the session `keep`; the user id comes from
 * the caller's own verified session.
 */
export async function deleteUserSessions(db: Executor, userId: string, keep?: string) {
  let query = db.deleteFrom('dashboard_sessions').where('user_id', '=', userId)
  if (keep) query = query.where('id_hash', '!=', keep)
  await query.execute()
}

/** Stores an invite into the row's tenant; it is claimed only by its token's hash. */
export async function insertInvite(db: Executor, row: Insertable<DashboardInvitesTable>) {
  await db.insertInto('dashboard_invites').values(row).execute()
}

/**
 * Marks an unused, unexpired invite used; the row, or undefined when it was not claimable. Found
 * by the link token's hash, before the invitee has any tenant.
 */
export function claimInvite(db: Executor, tokenHash: string, now: string) {
  return db
    .updateTable('dashboard_invites')
    .set({ accepted_at: now })
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst()
}

/**
 * The hourly cleanup (jobs/cleanup.job.ts), for every tenant at once: removes dashboard sessions
 * past their absolute expiry (`expires_at` before `now`) or idle since before `idleBefore`, which
 * sign-in would refuse anyway; their rows would otherwise stay forever. Returns how many.
 */
export async function deleteExpiredSessions(
  db: Executor,
  now: string,
  idleBefore: string,
): Promise<number> {
  const result = await db
    .deleteFrom('dashboard_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleBefore)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** The same cleanup, for every tenant: invite links that expired before `before`, used or not. */
export async function deleteExpiredInvites(db: Executor, before: string): Promise<number> {
  const result = await db
    .deleteFrom('dashboard_invites')
    .where('expires_at', '<', before)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
