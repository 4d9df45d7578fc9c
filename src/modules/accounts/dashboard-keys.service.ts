import type { Mode } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { CreatedKey, TenantService } from '../tenants/tenant.service.ts'
import type { SignedInUser } from './account.service.ts'
import { requirePermission } from './roles.ts'

/** An API key as the dashboard lists it: never the key itself, only its last characters. */
export interface DashboardKeyView {
  id: string
  mode: Mode
  hint: string
  created_at: string
  revoked_at: string | null
}

/**
 * API keys from the dashboard: TenantService's calls, limited to the signed-in user's tenant
 * (a key id of another tenant is a 404) and to owners for changes.
 */
export class DashboardKeys {
  readonly #tenants: TenantService
  constructor(tenants: TenantService) {
    this.#tenants = tenants
  }

  async list(by: SignedInUser): Promise<DashboardKeyView[]> {
    requirePermission(by.role, 'manage_team')
    const rows = await this.#tenants.listKeys(by.tenantId)
    return rows.map((r) => ({
      id: r.id,
      mode: r.mode,
      hint: r.key_hint,
      created_at: r.created_at,
      revoked_at: r.revoked_at,
    }))
  }

  /** A new key of `mode`; the raw key is in this answer only. */
  create(by: SignedInUser, mode: Mode): Promise<CreatedKey> {
    requirePermission(by.role, 'manage_team')
    return this.#tenants.createKey(by.tenantId, mode)
  }

  async revoke(by: SignedInUser, keyId: string): Promise<void> {
    requirePermission(by.role, 'manage_team')
    const own = await this.#tenants.listKeys(by.tenantId)
    if (!own.some((k) => k.id === keyId && k.revoked_at === null))
      throw new AppError('not_found', `No active key ${keyId}`)
    await this.#tenants.revokeKey(keyId)
  }
}
