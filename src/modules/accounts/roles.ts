import type { DashboardRole } from '../../infra/db/tables/accounts.ts'
import { AppError } from '../../shared/app-error.ts'

/**
 * What each dashboard role may do, in one place (issue 12): viewers read; admins also manage
 * content (packages, webhooks); owners also manage users and API keys.
 */
export type DashboardPermission = 'read' | 'manage_content' | 'manage_team'

const GRANTS: Record<DashboardRole, readonly DashboardPermission[]> = {
  viewer: ['read'],
  admin: ['read', 'manage_content'],
  owner: ['read', 'manage_content', 'manage_team'],
}

export function can(role: DashboardRole, permission: DashboardPermission): boolean {
  return GRANTS[role].includes(permission)
}

const REFUSAL: Record<DashboardPermission, string> = {
  read: 'You cannot read this tenant',
  manage_content: 'Only an admin or an owner can change this',
  manage_team: 'Only an owner can manage users and API keys',
}

/** Throws `forbidden` unless `role` grants `permission`. */
export function requirePermission(role: DashboardRole, permission: DashboardPermission): void {
  if (!can(role, permission)) throw new AppError('forbidden', REFUSAL[permission])
}
