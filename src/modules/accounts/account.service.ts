import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import type { DashboardRole } from '../../infra/db/tables/accounts.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import * as repo from './account.cross-tenant.repository.ts'
import {
  DUMMY_HASH,
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  needsRehash,
  verifyPassword,
} from './password.ts'
import { can, requirePermission, requireRoleChange } from './roles.ts'
import { hashToken, newSecretToken } from './secret-token.ts'
import * as team from './team.repository.ts'

export const ROLES = ['owner', 'admin', 'viewer'] as const satisfies readonly DashboardRole[]

/**
 * How long a dashboard session and an invite link live.
 * - `idleMs`: signed out after this long without a request; default 2 hours.
 * - `absoluteMs`: signed out this long after sign-in, however active; default 12 hours.
 * - `inviteMs`: an invite (or set-password) link works this long, once; default 72 hours.
 */
export interface AccountPolicy {
  idleMs: number
  absoluteMs: number
  inviteMs: number
}

export const DEFAULT_ACCOUNT_POLICY: AccountPolicy = Object.freeze({
  idleMs: 2 * 3600_000,
  absoluteMs: 12 * 3600_000,
  inviteMs: 72 * 3600_000,
})

/** last_seen_at moves at most this often, so reading pages is not a write per request. */
const TOUCH_EVERY_MS = 60_000

/** Who a dashboard request acts for, from its session. */
export interface SignedInUser {
  userId: string
  tenantId: string
  email: string
  role: DashboardRole
  csrfToken: string
  /** The stored hash of the cookie's session id. */
  sessionHash: string
}

/** A new session: `sessionId` goes into the cookie (never stored), `csrfToken` to the page. */
export interface NewSession {
  sessionId: string
  user: SignedInUser
  expiresAt: string
}

export interface CreatedInvite {
  token: string
  email: string
  role: DashboardRole
  expiresAt: string
}

function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase()
  if (!/^[^\s@]+@[^\s@]+$/.test(value) || value.length > 254)
    throw new AppError('validation_failed', 'email is not an e-mail address')
  return value
}

function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH)
    throw new AppError(
      'validation_failed',
      `A password has ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
    )
}

/**
 * The team's scope. Dashboard users, their sessions and invites belong to a tenant, not to a mode
 * (one person reads both test and live data; their tables have no `mode` column), so the team
 * repository filters by `tenantId` only and ignores the mode (team.repository.ts).
 */
function teamScope(by: SignedInUser): TenantScope {
  return { tenantId: by.tenantId, mode: 'live' }
}

/** Dashboard users, their sign-in sessions and invite links (DESIGN §12, "The dashboard"). */
export class AccountService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  readonly #policy: AccountPolicy
  constructor(deps: { db: Kysely<Database>; clock: Clock; policy?: Partial<AccountPolicy> }) {
    this.#db = deps.db
    this.#clock = deps.clock
    this.#policy = { ...DEFAULT_ACCOUNT_POLICY, ...deps.policy }
  }

  /**
   * A one-time link that creates the user `email` with `role` in `tenantId` once they choose a
   * password. The CLI makes the first owner's this way (`createdBy` null); owners invite others.
   */
  async createInvite(
    tenantId: string,
    input: { email: string; role: DashboardRole },
    createdBy: string | null,
  ): Promise<CreatedInvite> {
    const email = normaliseEmail(input.email)
    const tenant = await this.#db
      .selectFrom('tenants')
      .select('id')
      .where('id', '=', tenantId)
      .executeTakeFirst()
    if (!tenant) throw new AppError('not_found', `No tenant ${tenantId}`)
    if (await repo.findUserByEmail(this.#db, email))
      throw new AppError('conflict', `A dashboard user ${email} exists already`)
    const token = newSecretToken()
    const now = this.#clock.now()
    const expiresAt = new Date(now.getTime() + this.#policy.inviteMs).toISOString()
    await repo.insertInvite(this.#db, {
      token_hash: hashToken(token),
      tenant_id: tenantId,
      email,
      role: input.role,
      created_by: createdBy,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      accepted_at: null,
    })
    return { token, email, role: input.role, expiresAt }
  }

  /** An admin or owner invites someone into their own tenant; only owners invite owners. */
  invite(by: SignedInUser, input: { email: string; role: DashboardRole }) {
    requireRoleChange(by.role, null, input.role)
    return this.createInvite(by.tenantId, input, by.userId)
  }

  /** Uses an invite link once: creates its user with `password` and signs them in. */
  async acceptInvite(token: string, password: string): Promise<NewSession> {
    checkNewPassword(password)
    const passwordHash = await hashPassword(password)
    return this.#db.transaction().execute(async (trx) => {
      const now = this.#clock.now().toISOString()
      const invite = await repo.claimInvite(trx, hashToken(token), now)
      if (!invite) throw new AppError('not_found', 'This link was used already or has expired')
      if (await repo.findUserByEmail(trx, invite.email))
        throw new AppError('conflict', `A dashboard user ${invite.email} exists already`)
      const userId = newId('usr')
      await repo.insertUser(trx, {
        id: userId,
        tenant_id: invite.tenant_id,
        email: invite.email,
        role: invite.role,
        password_hash: passwordHash,
        created_at: now,
        updated_at: now,
      })
      return this.#startSession(trx, {
        userId,
        tenantId: invite.tenant_id,
        email: invite.email,
        role: invite.role,
      })
    })
  }

  /**
   * Signs in, or null for a wrong e-mail or password (which one is not told). An unknown e-mail
   * costs one scrypt like a known one, so timing does not reveal who has an account.
   */
  async login(emailInput: string, password: string): Promise<NewSession | null> {
    const email = emailInput.trim().toLowerCase()
    const user = await repo.findUserByEmail(this.#db, email)
    const ok = await verifyPassword(
      password.slice(0, MAX_PASSWORD_LENGTH),
      user?.password_hash ?? DUMMY_HASH,
    )
    if (!user || !ok) return null
    if (needsRehash(user.password_hash)) {
      const now = this.#clock.now().toISOString()
      await repo.updatePassword(
        this.#db,
        user.tenant_id,
        user.id,
        await hashPassword(password),
        now,
      )
    }
    // Always a new id: a session id planted before sign-in is never promoted (fixation).
    return this.#startSession(this.#db, {
      userId: user.id,
      tenantId: user.tenant_id,
      email: user.email,
      role: user.role,
    })
  }

  /** The user a cookie's session id signs in, or null when unknown, idle too long or expired. */
  async authenticate(sessionId: string): Promise<SignedInUser | null> {
    const idHash = hashToken(sessionId)
    const row = await repo.findSession(this.#db, idHash)
    if (!row) return null
    const now = this.#clock.now()
    const idleUntil = new Date(row.last_seen_at).getTime() + this.#policy.idleMs
    if (now.getTime() >= idleUntil || now.toISOString() >= row.expires_at) {
      await repo.deleteSession(this.#db, idHash)
      return null
    }
    if (now.getTime() - new Date(row.last_seen_at).getTime() >= TOUCH_EVERY_MS)
      await repo.touchSession(this.#db, idHash, now.toISOString())
    return {
      userId: row.user_id,
      tenantId: row.tenant_id,
      email: row.email,
      role: row.role,
      csrfToken: row.csrf_token,
      sessionHash: idHash,
    }
  }

  /** Revokes the session at once: the next request with its cookie is refused. */
  async logout(user: SignedInUser): Promise<void> {
    await repo.deleteSession(this.#db, user.sessionHash)
  }

  /** Changes the password and signs the user out of every other browser. */
  async changePassword(user: SignedInUser, current: string, next: string): Promise<void> {
    checkNewPassword(next)
    const row = await repo.findUser(this.#db, user.tenantId, user.userId)
    if (!row || !(await verifyPassword(current, row.password_hash)))
      throw new AppError('forbidden', 'The current password is not right')
    const hash = await hashPassword(next)
    await this.#db.transaction().execute(async (trx) => {
      await repo.updatePassword(
        trx,
        user.tenantId,
        user.userId,
        hash,
        this.#clock.now().toISOString(),
      )
      await repo.deleteUserSessions(trx, user.userId, user.sessionHash)
    })
  }

  /** Whether the tenant has any dashboard user yet (the first start offers a link when not). */
  async hasUsers(tenantId: string): Promise<boolean> {
    return Number((await repo.countUsers(this.#db, tenantId)).n) > 0
  }

  /** The tenant's users, by e-mail (everyone signed in may read it). */
  async listUsers(by: SignedInUser) {
    return team.listUsers(this.#db, teamScope(by))
  }

  /**
   * The tenant's pending invites (unused, unexpired), newest first: admins see those for admins
   * and viewers, owners all. The id is the stored hash of the link's token, which cannot be
   * turned back into the link.
   */
  async listInvites(by: SignedInUser) {
    requirePermission(by.role, 'manage_users')
    const roles: DashboardRole[] = can(by.role, 'manage_team') ? [...ROLES] : ['admin', 'viewer']
    const now = this.#clock.now().toISOString()
    const rows = await team.listPendingInvites(this.#db, teamScope(by), now, roles)
    return rows.map(({ token_hash, ...row }) => ({ id: token_hash, ...row }))
  }

  /** Revokes a pending invite: its link stops working at once (same rules as inviting). */
  async revokeInvite(by: SignedInUser, inviteId: string): Promise<void> {
    requirePermission(by.role, 'manage_users')
    const scope = teamScope(by)
    const invite = await team.findPendingInvite(this.#db, scope, inviteId)
    if (!invite) throw new AppError('not_found', `No pending invite ${inviteId}`)
    requireRoleChange(by.role, null, invite.role)
    if (!(await team.deletePendingInvite(this.#db, scope, inviteId)))
      throw new AppError('not_found', `No pending invite ${inviteId}`)
  }

  /**
   * Changes a user's role (admins for admins and viewers, owners for owners); the tenant's last
   * owner cannot be demoted. Atomic against concurrent changes: see `#changeTeam`.
   */
  async changeRole(by: SignedInUser, userId: string, role: DashboardRole): Promise<void> {
    await this.#changeTeam(by, userId, role, async (trx, scope) => {
      const now = this.#clock.now().toISOString()
      if (!(await team.setRoleKeepingAnOwner(trx, scope, userId, role, now)))
        throw new AppError(
          'invalid_state',
          'The last owner cannot be demoted; promote another first',
        )
    })
  }

  /** Removes a user and signs them out at once; never the tenant's last owner. */
  async removeUser(by: SignedInUser, userId: string): Promise<void> {
    await this.#changeTeam(by, userId, null, async (trx, scope) => {
      await team.deleteSessionsOf(trx, scope, userId)
      if (!(await team.deleteUserKeepingAnOwner(trx, scope, userId)))
        throw new AppError('invalid_state', 'The last owner cannot be removed')
    })
  }

  /**
   * One change of the team, in a transaction that first locks the tenant's owner rows
   * (`team.lockOwners`), then re-reads the actor's and the target's roles: two owners demoting
   * each other at once run one after the other, and the second finds its actor no longer an
   * owner (403) or the target the last owner (409). The change itself is a conditional
   * statement that keeps an owner (team.repository.ts).
   */
  async #changeTeam(
    by: SignedInUser,
    userId: string,
    to: DashboardRole | null,
    change: (trx: Transaction<Database>, scope: TenantScope) => Promise<void>,
  ): Promise<void> {
    requireRoleChange(by.role, null, to === 'owner' ? 'owner' : null)
    const scope = teamScope(by)
    await this.#db.transaction().execute(async (trx) => {
      await team.lockOwners(trx, scope)
      const actor = await team.findMember(trx, scope, by.userId)
      if (!actor) throw new AppError('unauthorized', 'Not signed in')
      const target = await team.findMember(trx, scope, userId)
      if (!target) throw new AppError('not_found', `No user ${userId}`)
      requireRoleChange(actor.role, target.role, to)
      await change(trx, scope)
    })
  }

  async #startSession(
    db: Parameters<typeof repo.insertSession>[0],
    who: Omit<SignedInUser, 'csrfToken' | 'sessionHash'>,
  ): Promise<NewSession> {
    const sessionId = newSecretToken()
    const csrfToken = newSecretToken()
    const now = this.#clock.now()
    const expiresAt = new Date(now.getTime() + this.#policy.absoluteMs).toISOString()
    const idHash = hashToken(sessionId)
    await repo.insertSession(db, {
      id_hash: idHash,
      user_id: who.userId,
      tenant_id: who.tenantId,
      csrf_token: csrfToken,
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: expiresAt,
    })
    return { sessionId, expiresAt, user: { ...who, csrfToken, sessionHash: idHash } }
  }
}
