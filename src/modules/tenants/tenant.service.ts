import type { Kysely } from 'kysely'
import type { Database, Mode } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import { generateApiKey, hashApiKey, keyHint, modeOfKey } from './api-key.ts'
import * as registry from './tenant.cross-tenant.repository.ts'
import * as repo from './tenant.repository.ts'
import { MODES, type TenantScope } from './tenant-scope.ts'

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
      const plan = await registry.findPlan(trx, planId)
      if (!plan) {
        const known = (await registry.listPlans(trx)).map((p) => p.id).join(', ')
        throw new AppError('validation_failed', `Unknown plan "${planId}"; known plans: ${known}`)
      }
      const tenantId = newId('ten')
      await registry.insertTenant(trx, {
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
    const tenant = await registry.findTenant(this.#db, tenantId)
    if (!tenant) throw new AppError('not_found', `No tenant ${tenantId}`)
    return this.#insertKey(this.#db, tenantId, mode)
  }

  /**
   * Revokes one of the scope's keys; another tenant's (or mode's) key is a 404. Revoked keys
   * fail authentication from the next request on: lookups are never cached.
   */
  async revokeTenantKey(scope: TenantScope, keyId: string): Promise<void> {
    const revoked = await repo.revokeApiKey(this.#db, scope, keyId, isoNow(this.#clock))
    if (!revoked) throw new AppError('not_found', `No active key ${keyId}`)
  }

  /** Operator CLI only (`key revoke <id>`): revokes any tenant's key by id. */
  async revokeKey(keyId: string): Promise<void> {
    const key = await registry.findApiKeyForOperator(this.#db, keyId)
    if (!key) throw new AppError('not_found', `No active key ${keyId}`)
    await this.revokeTenantKey({ tenantId: key.tenant_id, mode: key.mode }, keyId)
  }

  /** The scope of a raw API key, or null for an unknown, malformed or revoked key. */
  async authenticate(rawKey: string): Promise<AuthenticatedKey | null> {
    if (!modeOfKey(rawKey)) return null
    const row = await registry.findActiveKeyByHash(this.#db, hashApiKey(rawKey))
    return row ? { keyId: row.id, tenantId: row.tenant_id, mode: row.mode } : null
  }

  /**
   * Tenant options. `suspendDataLimit12`: characters of `cmi.suspend_data` allowed to SCORM 1.2
   * content (default 4096, the standard's size; 64000 for content that needs more).
   * `scormStatements`: SCORM sessions also write xAPI statements to the tenant's LRS (default
   * true; docs/lrs.md).
   */
  async updateSettings(
    tenantId: string,
    changes: { suspendDataLimit12?: 4096 | 64000; scormStatements?: boolean },
  ): Promise<Record<string, unknown>> {
    return this.#db.transaction().execute(async (trx) => {
      const tenant = await registry.findTenant(trx, tenantId)
      if (!tenant) throw new AppError('not_found', `No tenant ${tenantId}`)
      const settings = { ...(JSON.parse(tenant.settings) as Record<string, unknown>), ...changes }
      await registry.updateTenantSettings(trx, tenantId, JSON.stringify(settings))
      return settings
    })
  }

  async hasAnyTenant(): Promise<boolean> {
    return (await registry.listTenants(this.#db)).length > 0
  }

  listTenants() {
    return registry.listTenants(this.#db)
  }

  /** Both modes' keys of a tenant: live keys, then test keys, each oldest first. */
  async listKeys(tenantId: string) {
    const lists = await Promise.all(
      MODES.map((mode) => repo.listApiKeys(this.#db, { tenantId, mode })),
    )
    return lists.flat()
  }

  async #insertKey(
    db: Parameters<typeof repo.insertApiKey>[0],
    tenantId: string,
    mode: Mode,
  ): Promise<CreatedKey> {
    const key = generateApiKey(mode)
    const id = newId('key')
    await repo.insertApiKey(
      db,
      { tenantId, mode },
      {
        id,
        key_hash: hashApiKey(key),
        key_hint: keyHint(key),
        created_at: isoNow(this.#clock),
        revoked_at: null,
      },
    )
    return { id, tenantId, mode, key }
  }
}
