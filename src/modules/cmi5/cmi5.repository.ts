import type { Executor } from '../../infra/db/schema.ts'
import type { Cmi5LaunchesTable, Cmi5RegistrationsTable } from '../../infra/db/tables/cmi5.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

export async function findRegistration(
  db: Executor,
  scope: TenantScope,
  id: string,
): Promise<Cmi5RegistrationsTable | undefined> {
  return db
    .selectFrom('cmi5_registrations')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** The latest registration that follows a Courseport session. */
export async function findRegistrationOfSession(
  db: Executor,
  scope: TenantScope,
  sessionId: string,
): Promise<Cmi5RegistrationsTable | undefined> {
  return db
    .selectFrom('cmi5_registrations')
    .selectAll()
    .where('session_id', '=', sessionId)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .orderBy('created_at', 'desc')
    .executeTakeFirst()
}

/** Stores a registration of `scope` (the row's tenant and mode are the scope's). */
export async function insertRegistration(
  db: Executor,
  scope: TenantScope,
  row: Cmi5RegistrationsTable,
) {
  await db
    .insertInto('cmi5_registrations')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
}

export async function updateRegistration(
  db: Executor,
  scope: TenantScope,
  id: string,
  set: Partial<Pick<Cmi5RegistrationsTable, 'state' | 'session_id' | 'updated_at'>>,
) {
  await db
    .updateTable('cmi5_registrations')
    .set(set)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .execute()
}

/** A launch of the scope by its id; another tenant's or mode's id finds nothing. */
export async function findLaunch(
  db: Executor,
  scope: TenantScope,
  id: string,
): Promise<Cmi5LaunchesTable | undefined> {
  return db
    .selectFrom('cmi5_launches')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function openLaunches(
  db: Executor,
  scope: TenantScope,
  registrationId: string,
): Promise<Cmi5LaunchesTable[]> {
  return db
    .selectFrom('cmi5_launches')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('registration_id', '=', registrationId)
    .where('status', 'in', ['launched', 'initialized'])
    .orderBy('launched_at')
    .execute()
}

/** Stores a launch of `scope` (the row's tenant and mode are the scope's). */
export async function insertLaunch(db: Executor, scope: TenantScope, row: Cmi5LaunchesTable) {
  await db
    .insertInto('cmi5_launches')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
}

export async function updateLaunch(
  db: Executor,
  scope: TenantScope,
  id: string,
  set: Partial<
    Pick<
      Cmi5LaunchesTable,
      'status' | 'fetched_at' | 'credential_id' | 'updated_at' | 'preferences_read' | 'verbs'
    >
  >,
) {
  await db
    .updateTable('cmi5_launches')
    .set(set)
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .execute()
}

/** Marks the fetch URL used; false when it already was (compare-and-set). */
export async function claimFetch(
  db: Executor,
  scope: TenantScope,
  id: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('cmi5_launches')
    .set({ fetched_at: at, updated_at: at })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .where('fetched_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * A package version's manifest, blob prefix and package, for launches and the cmi5 structure
 * loader: callers hold a version id read from a session, registration or launch row of `scope`.
 */
export async function findVersionManifest(
  db: Executor,
  scope: TenantScope,
  versionId: string,
): Promise<{ manifest: string; blob_prefix: string; package_id: string } | undefined> {
  return db
    .selectFrom('package_versions')
    .select(['manifest', 'blob_prefix', 'package_id'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', versionId)
    .executeTakeFirst()
}
