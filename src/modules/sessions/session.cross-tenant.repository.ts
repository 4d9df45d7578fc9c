/**
 * Reading a session by its id alone, across tenants — deliberately: the player's runtime calls
 * (and the cmi5 course menu) carry a signed token that names the session, and the session row is
 * what tells them the tenant and mode. Every later query of such a call takes the scope read
 * from this row (`scopeOfSession`).
 */
import { preparedQuery } from '../../infra/db/prepared-query.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'

const sessionById = preparedQuery((db, p: { id: string }) =>
  db.selectFrom('sessions').selectAll().where('id', '=', p.id),
)

/** The session a verified runtime token names, whichever tenant it belongs to. */
export async function findSessionForRuntime(
  db: Executor,
  id: string,
): Promise<SessionsTable | undefined> {
  return sessionById.first(db, { id })
}
