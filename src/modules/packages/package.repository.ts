import { sql } from 'kysely'
import { type KeysetPosition, newestFirstPage } from '../../infra/db/keyset.ts'
import { preparedQuery } from '../../infra/db/prepared-query.ts'
import type {
  Executor,
  Mode,
  PackageRuntimeWarningsTable,
  PackagesTable,
  PackageVersionsTable,
  UploadIntentsTable,
} from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/*
 * Every function takes the scope and filters by it (inserts take their tenant and mode from it),
 * so no path here reads or writes another tenant's or mode's rows (test/unit/architecture).
 */

/** Stores a package of `scope` (the row's tenant and mode are the scope's). */
export async function insertPackage(
  db: Executor,
  scope: TenantScope,
  row: PackagesTable,
): Promise<void> {
  await db
    .insertInto('packages')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
}

export async function findPackage(
  db: Executor,
  scope: TenantScope,
  id: string,
): Promise<PackagesTable | undefined> {
  return db
    .selectFrom('packages')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .executeTakeFirst()
}

export interface PackageListFilter {
  limit: number
  status?: 'active' | 'archived'
  /** Keyset position: rows strictly older than this (created_at, id) pair. */
  after?: KeysetPosition
}

/** Newest first; fetches `limit + 1` rows so the caller knows whether a next page exists. */
export async function listPackages(
  db: Executor,
  scope: TenantScope,
  filter: PackageListFilter,
): Promise<PackagesTable[]> {
  let query = db
    .selectFrom('packages')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
  if (filter.status) query = query.where('status', '=', filter.status)
  return newestFirstPage(query, filter.after, filter.limit).execute()
}

export async function updatePackage(
  db: Executor,
  scope: TenantScope,
  id: string,
  changes: Partial<Omit<PackagesTable, 'id' | 'tenant_id' | 'mode'>>,
): Promise<void> {
  await db
    .updateTable('packages')
    .set(changes)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .execute()
}

/** Stores a version of `scope` (the row's tenant and mode are the scope's). */
export async function insertVersion(
  db: Executor,
  scope: TenantScope,
  row: PackageVersionsTable,
): Promise<void> {
  await db
    .insertInto('package_versions')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
}

export async function findVersion(
  db: Executor,
  scope: TenantScope,
  packageId: string,
  versionId: string,
): Promise<PackageVersionsTable | undefined> {
  return db
    .selectFrom('package_versions')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('package_id', '=', packageId)
    .where('id', '=', versionId)
    .executeTakeFirst()
}

export async function listVersions(
  db: Executor,
  scope: TenantScope,
  packageId: string,
): Promise<PackageVersionsTable[]> {
  return db
    .selectFrom('package_versions')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('package_id', '=', packageId)
    .orderBy('version_number', 'desc')
    .execute()
}

export async function setVersionActivated(
  db: Executor,
  scope: TenantScope,
  versionId: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('package_versions')
    .set({ activated_at: at })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', versionId)
    .execute()
}

/** Stores an upload intent of `scope` (the row's tenant and mode are the scope's). */
export async function insertUploadIntent(
  db: Executor,
  scope: TenantScope,
  row: UploadIntentsTable,
): Promise<void> {
  await db
    .insertInto('upload_intents')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
}

export async function findUploadIntent(
  db: Executor,
  scope: TenantScope,
  storagePath: string,
): Promise<UploadIntentsTable | undefined> {
  return db
    .selectFrom('upload_intents')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('storage_path', '=', storagePath)
    .executeTakeFirst()
}

/** Marks an intent used; false when another request consumed it first. */
export async function consumeUploadIntent(
  db: Executor,
  scope: TenantScope,
  id: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('upload_intents')
    .set({ consumed_at: at })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Makes a consumed intent usable again (its processing failed in a way a retry may fix). */
export async function releaseUploadIntent(
  db: Executor,
  scope: TenantScope,
  id: string,
): Promise<void> {
  await db
    .updateTable('upload_intents')
    .set({ consumed_at: null })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .execute()
}

/** Counts refusals of a package's content (runtime warnings), one row per code and element. */
export async function recordRuntimeWarnings(
  db: Executor,
  scope: TenantScope,
  packageId: string,
  warnings: ReadonlyArray<{ code: string; element: string; example: string; count: number }>,
  at: string,
): Promise<void> {
  for (const w of warnings) {
    await db
      .insertInto('package_runtime_warnings')
      .values({
        package_id: packageId,
        tenant_id: scope.tenantId,
        mode: scope.mode,
        code: w.code,
        element: w.element,
        example: w.example,
        count: w.count,
        first_seen_at: at,
        last_seen_at: at,
      })
      .onConflict((oc) =>
        oc.columns(['package_id', 'code', 'element']).doUpdateSet({
          count: sql<number>`package_runtime_warnings.count + ${w.count}`,
          example: w.example,
          last_seen_at: at,
        }),
      )
      .execute()
  }
}

/** A package's runtime warnings, most recently seen first (at most `limit`). */
export async function listRuntimeWarnings(
  db: Executor,
  scope: TenantScope,
  packageId: string,
  limit = 50,
): Promise<PackageRuntimeWarningsTable[]> {
  return db
    .selectFrom('package_runtime_warnings')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('package_id', '=', packageId)
    .orderBy('last_seen_at', 'desc')
    .orderBy('code')
    .orderBy('element')
    .limit(limit)
    .execute()
}

const packageOptions = preparedQuery((db, p: { tenantId: string; mode: Mode; id: string }) =>
  db
    .selectFrom('packages')
    .select('runtime_options')
    .where('tenant_id', '=', p.tenantId)
    .where('mode', '=', p.mode)
    .where('id', '=', p.id),
)

/** A package's runtime options JSON (`{}` when it has none or is not the scope's). */
export async function findRuntimeOptions(
  db: Executor,
  scope: TenantScope,
  packageId: string,
): Promise<string> {
  const row = await packageOptions.first(db, { ...scope, id: packageId })
  return row?.runtime_options ?? '{}'
}
