import type { Executor } from '../../infra/db/schema.ts'
import type { DispatchesTable } from '../../infra/db/tables/dispatches.ts'

/**
 * A dispatch by id in any tenant, for the content origin's launch: the signed dispatch token
 * names the dispatch, and the scope of everything after is read from the row found here.
 */
export async function findDispatchById(
  db: Executor,
  id: string,
): Promise<DispatchesTable | undefined> {
  return db.selectFrom('dispatches').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * Dispatches of every tenant whose expiry has passed without dispatch.expired recorded for it,
 * oldest first: the expiry job serves all tenants in one walk.
 */
export async function dueExpiries(
  db: Executor,
  now: string,
  limit: number,
): Promise<DispatchesTable[]> {
  return db
    .selectFrom('dispatches')
    .selectAll()
    .where('expired_event_at', 'is', null)
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', now)
    .where('status', '!=', 'deleted')
    .orderBy('expires_at')
    .limit(limit)
    .execute()
}

/**
 * Claims the expiry event of this exact `expires_at` (the expiry job, any tenant's dispatch from
 * `dueExpiries`); false when another worker (or an extend) got there first.
 */
export async function claimExpiry(
  trx: Executor,
  dispatchId: string,
  expiresAt: string,
  at: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('dispatches')
    .set({ expired_event_at: at })
    .where('id', '=', dispatchId)
    .where('expires_at', '=', expiresAt)
    .where('expired_event_at', 'is', null)
    .where('status', '!=', 'deleted')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
