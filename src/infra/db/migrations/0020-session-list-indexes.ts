import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * Indexes for the sessions list (`GET /sessions`, the CSV export; DESIGN §12, issue 15): each
 * leads with one of the list's equality filters and ends with its keyset `(sort column, id)`,
 * so the row-value cursor of `infra/db/keyset.ts` is one range seek and needs no sort step.
 * `sessions_scope_created (tenant_id, mode, created_at, id)` from 0003 already serves the
 * unfiltered list by `created_at`.
 *
 * `sessions_scope_package` (0003) lacked the trailing `id`, so a cursor could not seek on it; it
 * is rebuilt under the same name (the learner-progress report seeks it too) with `id` added.
 */
const indexes: ReadonlyArray<readonly [name: string, columns: string[]]> = [
  ['sessions_scope_package', ['tenant_id', 'mode', 'package_id', 'created_at', 'id']],
  ['sessions_scope_updated', ['tenant_id', 'mode', 'updated_at', 'id']],
  ['sessions_scope_package_updated', ['tenant_id', 'mode', 'package_id', 'updated_at', 'id']],
  ['sessions_scope_learner_created', ['tenant_id', 'mode', 'learner_id', 'created_at', 'id']],
  ['sessions_scope_dispatch_created', ['tenant_id', 'mode', 'dispatch_id', 'created_at', 'id']],
]

export function sessionListIndexesMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('sessions_scope_package').execute()
      for (const [name, columns] of indexes) {
        await db.schema.createIndex(name).on('sessions').columns(columns).execute()
      }
    },
  }
}
