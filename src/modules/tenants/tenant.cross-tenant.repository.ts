import type { Executor, PlansTable, TenantsTable } from '../../infra/db/schema.ts'
import type { ApiKeyRow } from './tenant.repository.ts'

/*
 * The tenant registry sits above the tenant scope: `tenants` and `plans` rows are not owned by
 * a (tenant, mode), and an API key's tenant is what authentication finds out. Everything a
 * tenant owns is read through tenant.repository.ts with its TenantScope.
 */

/** Creates a tenant (operator CLI); the tenant has no scope until this row exists. */
export async function insertTenant(db: Executor, row: TenantsTable): Promise<void> {
  await db.insertInto('tenants').values(row).execute()
}

/** A tenant's own row by its id; tenants have no mode, so the id is the whole address. */
export async function findTenant(db: Executor, id: string): Promise<TenantsTable | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Replaces a tenant's settings JSON (operator CLI `tenant settings`); settings span both modes. */
export async function updateTenantSettings(
  db: Executor,
  id: string,
  settings: string,
): Promise<void> {
  await db.updateTable('tenants').set({ settings }).where('id', '=', id).execute()
}

/** Every tenant, oldest first: the operator's `tenant list` and first-run check. */
export async function listTenants(db: Executor): Promise<TenantsTable[]> {
  return db.selectFrom('tenants').selectAll().orderBy('created_at').execute()
}

/** A plan by id; plans are shared by all tenants. */
export async function findPlan(db: Executor, id: string): Promise<PlansTable | undefined> {
  return db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Every plan, smallest first; plans are shared by all tenants. */
export async function listPlans(db: Executor): Promise<PlansTable[]> {
  return db.selectFrom('plans').selectAll().orderBy('active_learner_allotment').execute()
}

/**
 * The unrevoked key with this hash, in any tenant. Cross-tenant because this is how a request's
 * tenant becomes known: the scope is read from the row the secret's hash found.
 */
export async function findActiveKeyByHash(
  db: Executor,
  keyHash: string,
): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'tenant_id', 'mode', 'key_hint', 'created_at', 'revoked_at'])
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
}

/**
 * A key by id in any tenant, for the operator CLI's `key revoke <id>` only, which knows no
 * tenant; it then revokes through the scoped `revokeApiKey` with the scope read here.
 */
export async function findApiKeyForOperator(
  db: Executor,
  id: string,
): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'tenant_id', 'mode', 'key_hint', 'created_at', 'revoked_at'])
    .where('id', '=', id)
    .executeTakeFirst()
}
