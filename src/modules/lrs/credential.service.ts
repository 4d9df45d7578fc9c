import { createHash, timingSafeEqual } from 'node:crypto'
import type { Kysely } from 'kysely'
import { cursorPosition, pageOf } from '../../infra/db/keyset.ts'
import type { Database, Mode } from '../../infra/db/schema.ts'
import type { LrsCredentialScope, LrsCredentialsTable } from '../../infra/db/tables/lrs.ts'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import { randomBase62 } from '../../shared/ids.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { findActiveCredentialByKey } from './credential.cross-tenant.repository.ts'
import * as repo from './credential.repository.ts'
import type { XapiVersion } from './xapi-primitives.ts'

export type { LrsCredentialScope } from '../../infra/db/tables/lrs.ts'

/** A credential as listed: never its secret. */
export interface CredentialView {
  id: string
  key: string
  label: string
  scope: LrsCredentialScope
  /** The version that answers requests sent without a version header (default `2.0.0`). */
  xapi_version: XapiVersion
  mode: Mode
  created_at: string
  revoked_at: string | null
}

/** An authenticated /xapi caller. */
export interface LrsCredential extends TenantScope {
  credentialId: string
  key: string
  label: string
  scope: LrsCredentialScope
  /** The version that answers this credential's requests without a version header. */
  xapiVersion: XapiVersion
  /** The cmi5 / Tin Can launch the credential was issued to (LrsLaunchGuard); null otherwise. */
  launchId: string | null
}

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

function view(row: LrsCredentialsTable): CredentialView {
  return {
    id: row.id,
    key: row.key,
    label: row.label,
    scope: row.scope,
    xapi_version: row.xapi_version,
    mode: row.mode,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  }
}

/**
 * LRS key/secret pairs per tenant and mode (HTTP Basic on /xapi). Like API keys, the secret is
 * stored as SHA-256 and shown once; lookups are never cached, so revocation is immediate.
 */
export class CredentialService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db
    this.#clock = clock
  }

  /**
   * Creates a credential (scope default `all`, xAPI version default `2.0.0`); the secret is
   * returned this once.
   */
  async create(
    scope: TenantScope,
    input: { label?: string; scope?: LrsCredentialScope; xapi_version?: XapiVersion },
  ): Promise<CredentialView & { secret: string }> {
    const row: LrsCredentialsTable = {
      id: `xcr_${randomBase62(20)}`,
      tenant_id: scope.tenantId,
      mode: scope.mode,
      key: `xk_${scope.mode}_${randomBase62(24)}`,
      secret_hash: '',
      label: input.label?.trim() || 'LRS credential',
      scope: input.scope ?? 'all',
      created_at: isoNow(this.#clock),
      revoked_at: null,
      launch_id: null,
      expires_at: null,
      xapi_version: input.xapi_version ?? '2.0.0',
    }
    const secret = randomBase62(43)
    row.secret_hash = hashSecret(secret)
    await repo.insertCredential(this.#db, scope, row)
    return { ...view(row), secret }
  }

  async list(
    scope: TenantScope,
    page: { limit: number; cursor?: string },
  ): Promise<{ credentials: CredentialView[]; next_cursor: string | null }> {
    const after = cursorPosition(page.cursor || undefined)
    const rows = await repo.listCredentials(this.#db, scope, { limit: page.limit, after })
    const { data, next_cursor } = pageOf(rows, page.limit)
    return { credentials: data.map(view), next_cursor }
  }

  /** A foreign or unknown id is a 404; revoking twice is a 404 too. */
  async revoke(scope: TenantScope, id: string): Promise<void> {
    if (!(await repo.revokeCredential(this.#db, scope, id, isoNow(this.#clock)))) {
      throw new AppError('not_found', `No active LRS credential ${id}`)
    }
  }

  /**
   * A credential for one cmi5 / Tin Can launch: scope `all` within what the launch guard allows,
   * expiring at `expiresAt`, never listed. Returns the Basic `key:secret` pair, base64-encoded
   * (cmi5's `auth-token`).
   */
  async createForLaunch(
    scope: TenantScope,
    input: { launchId: string; label: string; expiresAt: Date },
  ): Promise<{ id: string; basicToken: string }> {
    const secret = randomBase62(43)
    const row: LrsCredentialsTable = {
      id: `xcr_${randomBase62(20)}`,
      tenant_id: scope.tenantId,
      mode: scope.mode,
      key: `xl_${scope.mode}_${randomBase62(24)}`,
      secret_hash: hashSecret(secret),
      label: input.label,
      scope: 'all',
      created_at: isoNow(this.#clock),
      revoked_at: null,
      launch_id: input.launchId,
      expires_at: input.expiresAt.toISOString(),
      xapi_version: '2.0.0',
    }
    await repo.insertCredential(this.#db, scope, row)
    return { id: row.id, basicToken: Buffer.from(`${row.key}:${secret}`).toString('base64') }
  }

  /** Ends every credential of a launch (terminated or abandoned); idempotent. */
  async revokeLaunch(scope: TenantScope, launchId: string): Promise<void> {
    await repo.revokeLaunchCredentials(this.#db, scope, launchId, isoNow(this.#clock))
  }

  /**
   * The caller of a Basic key/secret pair, or null for unknown, revoked, expired or wrong
   * secrets.
   */
  async authenticate(key: string, secret: string): Promise<LrsCredential | null> {
    const row = await findActiveCredentialByKey(this.#db, key)
    if (!row) return null
    if (row.expires_at !== null && row.expires_at <= isoNow(this.#clock)) return null
    const given = Buffer.from(hashSecret(secret), 'hex')
    if (!timingSafeEqual(given, Buffer.from(row.secret_hash, 'hex'))) return null
    return {
      tenantId: row.tenant_id,
      mode: row.mode,
      credentialId: row.id,
      key: row.key,
      label: row.label,
      scope: row.scope,
      xapiVersion: row.xapi_version,
      launchId: row.launch_id,
    }
  }
}
