/** A dashboard user's role in their tenant: owners invite, admins and viewers do not. */
export type DashboardRole = 'owner' | 'admin' | 'viewer'

/** A person who signs in to the dashboard; belongs to one tenant (e-mail unique overall). */
export interface DashboardUsersTable {
  id: string
  tenant_id: string
  /** Lower-cased. */
  email: string
  role: DashboardRole
  /** `scrypt$N$r$p$salt$hash` (modules/accounts/password.ts): the parameters travel with it. */
  password_hash: string
  created_at: string
  updated_at: string
}

/**
 * A signed-in browser. The cookie holds a random id; only its SHA-256 is stored, so a copy of
 * the table signs nobody in. Deleting the row signs the browser out at once.
 */
export interface DashboardSessionsTable {
  id_hash: string
  user_id: string
  tenant_id: string
  /** Sent back in X-CSRF-Token by every state-changing call. */
  csrf_token: string
  created_at: string
  /** Moved forward at most once a minute; the idle expiry counts from it. */
  last_seen_at: string
  /** The absolute expiry: no activity extends past it. */
  expires_at: string
}

/** A one-time link that creates a user (an invitation, or the first owner from the CLI). */
export interface DashboardInvitesTable {
  token_hash: string
  tenant_id: string
  email: string
  role: DashboardRole
  /** The inviting user; null when the CLI or the first start made it. */
  created_by: string | null
  created_at: string
  expires_at: string
  accepted_at: string | null
}

export interface AccountTables {
  dashboard_users: DashboardUsersTable
  dashboard_sessions: DashboardSessionsTable
  dashboard_invites: DashboardInvitesTable
}
