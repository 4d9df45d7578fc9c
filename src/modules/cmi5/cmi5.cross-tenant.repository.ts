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
