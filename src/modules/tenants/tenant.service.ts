import type { Kysely } from 'kysely'
import type { Database, Mode } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import { generateApiKey, hashApiKey, keyHint, modeOfKey } from './api-key.ts'
import * as repo from './tenant.repository.ts'
import type { TenantScope } from './tenant-scope.ts'

export interface CreatedKey {
  id: string
  tenantId: string
  mode: Mode
  /** The raw key: shown once, never stored. */
  key: string
}

export interface CreatedTenant {
  tenantId: string
  name: string
  plan: string
  testKey: CreatedKey
  liveKey: CreatedKey
}

export interface AuthenticatedKey extends TenantScope {
  keyId: string
}

export class TenantService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock
  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db
    this.#clock = clock
  }

  /** Creates a tenant on `plan` (default `sandbox`) with one test and one live key. */
  async createTenant(input: { name: string; plan?: string }): Promise<CreatedTenant> {
    const name = input.name.trim()
    if (!name) throw new AppError('validation_failed', 'A tenant needs a name')
    const planId = input.plan ?? 'sandbox'
    return this.#db.transaction().execute(async (trx) => {
      const plan = await repo.findPlan(trx, planId)
      if (!plan) {
        const known = (await repo.listPlans(trx)).map((p) => p.id).join(', ')
        throw new AppError('validation_failed', `Unknown plan "${planId}"; known plans: ${known}`)
      }
      const tenantId = newId('ten')
      await repo.insertTenant(trx, {
        id: tenantId,
        name,
        plan_id: plan.id,
        settings: '{}',
        created_at: isoNow(this.#clock),
      })
      const testKey = await this.#insertKey(trx, tenantId, 'test')
      const liveKey = await this.#insertKey(trx, tenantId, 'live')
      return { tenantId, name, plan: plan.id, testKey, liveKey }
    })
  }

  async createKey(tenantId: string, mode: Mode): Promise<CreatedKey> {
    const tenant = await repo.findTenant(this.#db, tenantId)
    if (!tenant) throw new AppError('not_found', `No tenant ${tenantId}`)
    return this.#insertKey(this.#db, tenantId, mode)
  }

  /** Revoked keys fail authentication from the next request on: lookups are never cached. */
  async revokeKey(keyId: string): Promise<void> {
    const revoked = await repo.revokeApiKey(this.#db, keyId, isoNow(this.#clock))
    if (!revoked) throw new AppError('not_found', `No active key ${keyId}`)
  }

  /** The scope of a raw API key, or null for an unknown, malformed or revoked key. */
  async authenticate(rawKey: string): Promise<AuthenticatedKey | null> {
    if (!modeOfKey(rawKey)) return null
    const row = await repo.findActiveKeyByHash(this.#db, hashApiKey(rawKey))
    return row ? { keyId: row.id, tenantId: row.tenant_id, mode: row.mode } : null
  }

  /**
   * Tenant options. `suspendDataLimit12`: characters of `cmi.suspend_data` allowed to SCORM 1.2
   * content (default 4096, the standard's size; 64000 for content that needs more).
   */
  async updateSettings(
    tenantId: string,
    changes: { suspendDataLimit12?: 4096 | 64000 },
  ): Promise<Record<string, unknown>> {
    return this.#db.transaction().execute(async (trx) => {
      const tenant = await repo.findTenant(trx, tenantId)
      if (!tenant) throw new AppError('not_found', `No tenant ${tenantId}`)
      const settings = { ...(JSON.parse(tenant.settings) as Record<string, unknown>), ...changes }
      await repo.updateTenantSettings(trx, tenantId, JSON.stringify(settings))
      return settings
    })
  }

  async hasAnyTenant(): Promise<boolean> {
    return (await repo.listTenants(this.#db)).length > 0
  }

  listTenants() {
    return repo.listTenants(this.#db)
  }

  listKeys(tenantId: string) {
    return repo.listApiKeys(this.#db, tenantId)
  }

  async #insertKey(
    db: Parameters<typeof repo.insertApiKey>[0],
    tenantId: string,
    mode: Mode,
  ): Promise<CreatedKey> {
    const key = generateApiKey(mode)
    const id = newId('key')
    await repo.insertApiKey(db, {
      id,
      tenant_id: tenantId,
      mode,
      key_hash: hashApiKey(key),
      key_hint: keyHint(key),
      created_at: isoNow(this.#clock),
      revoked_at: null,
    })
    return { id, tenantId, mode, key }
  }
}
