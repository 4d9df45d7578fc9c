import { preparedQuery } from '../../infra/db/prepared-query.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { LrsCredentialsTable } from '../../infra/db/tables/lrs.ts'

// Every /xapi request runs it: compiled once, not built per request (infra/db/prepared-query.ts).
const activeByKey = preparedQuery((db, p: { key: string }) =>
  db
    .selectFrom('lrs_credentials')
    .selectAll()
    .where('key', '=', p.key)
    .where('revoked_at', 'is', null),
)

/**
 * The unrevoked credential with this public key, in any tenant. Cross-tenant because /xapi's
 * Basic credentials are how the tenant becomes known: the caller's scope is read from the row
 * (after the secret's hash is compared), never assumed.
 */
export async function findActiveCredentialByKey(
  db: Executor,
  key: string,
): Promise<LrsCredentialsTable | undefined> {
  return activeByKey.first(db, { key })
}
