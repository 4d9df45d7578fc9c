import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * `sessions_scope_dispatch (tenant_id, mode, dispatch_id, created_at)` (0006) is a prefix of
 * `sessions_scope_dispatch_created (…, created_at, id)` (0020), which serves every query it did
 * and the keyset cursor besides. Kept, it was one more index entry written by every launch and
 * stored for every session, which no plan needs.
 */
export function dropRedundantDispatchIndexMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('sessions_scope_dispatch').ifExists().execute()
    },
  }
}
