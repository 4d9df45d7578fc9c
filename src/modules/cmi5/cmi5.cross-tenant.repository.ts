import type { Executor } from '../../infra/db/schema.ts'
import type { Cmi5LaunchesTable } from '../../infra/db/tables/cmi5.ts'

/**
 * A launch by its id in any tenant, for the fetch URL (cmi5 §8.2) only: the URL carries the
 * launch id and a secret and nothing else, so the tenant is read from the row found here, and
 * only after the caller has compared the secret's hash with `fetch_hash`.
 */
export async function findLaunchForFetch(
  db: Executor,
  id: string,
): Promise<Cmi5LaunchesTable | undefined> {
  return db.selectFrom('cmi5_launches').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * A package version's manifest by id alone, for the cmi5 structure loader. Unscoped because its
 * callers (the LRS guard, launches, abandon) hold a version id they read from a registration or
 * launch row already found in their scope; the structure is the package's content, never data.
 * TODO: take the scope once StructureLoader carries it, and move this to cmi5.repository.ts.
 */
export async function findVersionManifest(
  db: Executor,
  versionId: string,
): Promise<{ manifest: string; blob_prefix: string; package_id: string } | undefined> {
  return db
    .selectFrom('package_versions')
    .select(['manifest', 'blob_prefix', 'package_id'])
    .where('id', '=', versionId)
    .executeTakeFirst()
}
