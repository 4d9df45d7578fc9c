import type { Executor, Mode, PlansTable, TenantsTable } from '../../infra/db/schema.ts'

export async function insertTenant(db: Executor, row: TenantsTable): Promise<void> {
  await db.insertInto('tenants').values(row).execute()
}

export async function findTenant(db: Executor, id: string): Promise<TenantsTable | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function updateTenantSettings(
  db: Executor,
  id: string,
  settings: string,
): Promise<void> {
  await db.updateTable('tenants').set({ settings }).where('id', '=', id).execute()
}

export async function listTenants(db: Executor): Promise<TenantsTable[]> {
  return db.selectFrom('tenants').selectAll().orderBy('created_at').execute()
}

export async function findPlan(db: Executor, id: string): Promise<PlansTable | undefined> {
  return db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function listPlans(db: Executor): Promise<PlansTable[]> {
  return db.selectFrom('plans').selectAll().orderBy('active_learner_allotment').execute()
}

export interface ApiKeyRow {
  id: string
  tenant_id: string
  mode: Mode
  key_hint: string
  created_at: string
  revoked_at: string | null
}

export async function insertApiKey(
  db: Executor,
  row: ApiKeyRow & { key_hash: string },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({ ...row, last_used_at: null })
    .execute()
}

/** The unrevoked key with this hash, joined to nothing: callers decide what a key may do. */
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

export async function listApiKeys(db: Executor, tenantId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'tenant_id', 'mode', 'key_hint', 'created_at', 'revoked_at'])
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .execute()
}

/** Returns whether a key was revoked by this call. */
export async function revokeApiKey(db: Executor, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
