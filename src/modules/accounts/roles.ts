import type { DashboardRole } from '../../infra/db/tables/accounts.ts'
import { AppError } from '../../shared/app-error.ts'

/**
 * What each dashboard role may do, in one place (issue 12):
 * - viewers read, and change nothing but their own password and sign-in;
 * - admins also manage content (packages, dispatches, webhooks, publishing) and the users who
 *   are not owners (invite admins and viewers, change their roles, remove them);
 * - owners also manage owners (invite, promote, demote, remove), API keys and LRS credentials.
 * The tenant always keeps one owner (AccountService).
 */
export type DashboardPermission = 'read' | 'manage_content' | 'manage_users' | 'manage_team'

const GRANTS: Record<DashboardRole, readonly DashboardPermission[]> = {
  viewer: ['read'],
  admin: ['read', 'manage_content', 'manage_users'],
  owner: ['read', 'manage_content', 'manage_users', 'manage_team'],
}

export function can(role: DashboardRole, permission: DashboardPermission): boolean {
  return GRANTS[role].includes(permission)
}

const REFUSAL: Record<DashboardPermission, string> = {
  read: 'You cannot read this tenant',
  manage_content: 'Only an admin or an owner can change this',
  manage_users: 'Only an admin or an owner can manage users',
  manage_team: 'Only an owner can manage owners, API keys and LRS credentials',
}

/** Throws `forbidden` unless `role` grants `permission`. */
export function requirePermission(role: DashboardRole, permission: DashboardPermission): void {
  if (!can(role, permission)) throw new AppError('forbidden', REFUSAL[permission])
}

/**
 * Throws `forbidden` unless `actor` may move a user from role `from` to role `to` (null: the
 * user does not exist yet, an invitation; or is removed): admins for admins and viewers, owners
 * whenever an owner is made or unmade.
 */
export function requireRoleChange(
  actor: DashboardRole,
  from: DashboardRole | null,
  to: DashboardRole | null,
): void {
  requirePermission(actor, 'manage_users')
  if (from === 'owner' || to === 'owner') requirePermission(actor, 'manage_team')
}
