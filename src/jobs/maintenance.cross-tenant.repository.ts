import type { Executor } from '../infra/db/schema.ts'

/*
 * The hourly cleanup job (cleanup.job.ts) removes expired rows of every tenant at once: it acts
 * for no tenant, and a per-tenant loop would cost a query per tenant for the same result.
 */

/** Up to `limit` upload intents whose URL expired before `before` (ISO time), of any tenant. */
export async function expiredUploadIntents(
  db: Executor,
  before: string,
  limit: number,
): Promise<Array<{ id: string; storage_path: string }>> {
  return db
    .selectFrom('upload_intents')
    .select(['id', 'storage_path'])
    .where('expires_at', '<', before)
    .limit(limit)
    .execute()
}

/** Removes one upload intent by id, once its stored object is gone (any tenant's). */
export async function deleteUploadIntent(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('upload_intents').where('id', '=', id).execute()
}

/** Removes every tenant's Idempotency-Key records created before `before` (ISO time). */
export async function pruneIdempotencyKeys(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute()
}
