/**
 * SCORM 2004 stores shared beyond one SCO: shared data buckets (`shared_data`, adl.data) and
 * global objectives (`global_objectives`, objective maps). Every function takes the tenant scope
 * and filters by `tenant_id` and `mode`; `bucketScope`/`objectiveScope` is the learner's or the
 * attempt's key inside it (shared-data.ts, attempt-sequencing.ts).
 */
import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/** The stored value of each shared-data bucket that has one, in `bucketScope`. */
export async function findSharedData(
  db: Executor,
  scope: TenantScope,
  bucketScope: string,
  targetIds: readonly string[],
): Promise<Map<string, string>> {
  if (targetIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('shared_data')
    .select(['target_id', 'store'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('scope', '=', bucketScope)
    .where('target_id', 'in', targetIds)
    .execute()
  return new Map(rows.map((r) => [r.target_id, r.store]))
}

export async function upsertSharedData(
  db: Executor,
  scope: TenantScope,
  key: { bucketScope: string; targetId: string },
  store: string,
  at: string,
): Promise<void> {
  const row = {
    tenant_id: scope.tenantId,
    mode: scope.mode,
    scope: key.bucketScope,
    target_id: key.targetId,
  }
  await db
    .insertInto('shared_data')
    .values({ ...row, store, updated_at: at })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'mode', 'scope', 'target_id'])
        .doUpdateSet({ store, updated_at: at }),
    )
    .execute()
}

/** A stored global objective: its id and its value (JSON). */
export type GlobalObjectiveRow = { objective_id: string; value: string }

/** Stored global objectives (JSON) of `objectiveScope` among `ids`. */
export async function findGlobalObjectives(
  db: Executor,
  scope: TenantScope,
  objectiveScope: string,
  ids: readonly string[],
): Promise<GlobalObjectiveRow[]> {
  if (ids.length === 0) return []
  return db
    .selectFrom('global_objectives')
    .select(['objective_id', 'value'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('scope', '=', objectiveScope)
    .where('objective_id', 'in', ids)
    .execute()
}

export async function upsertGlobalObjective(
  db: Executor,
  scope: TenantScope,
  key: { objectiveScope: string; objectiveId: string },
  value: string,
  at: string,
): Promise<void> {
  const row = {
    tenant_id: scope.tenantId,
    mode: scope.mode,
    scope: key.objectiveScope,
    objective_id: key.objectiveId,
  }
  await db
    .insertInto('global_objectives')
    .values({ ...row, value, updated_at: at })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'mode', 'scope', 'objective_id'])
        .doUpdateSet({ value, updated_at: at }),
    )
    .execute()
}
