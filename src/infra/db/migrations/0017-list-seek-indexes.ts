import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * Indexes for "lists seek, never scan" (DESIGN §12): each leads with a list's equality filters
 * and ends with its keyset `(created_at, id)`, so the row-value cursor of
 * `infra/db/keyset.ts` is one range seek whatever the filter, and no sort step is needed.
 * Lists without a filter already have `{table}_scope_created (tenant_id, mode, created_at, id)`.
 */
const indexes: ReadonlyArray<readonly [name: string, table: string, columns: string[]]> = [
  [
    'packages_scope_status_created',
    'packages',
    ['tenant_id', 'mode', 'status', 'created_at', 'id'],
  ],
  [
    'dispatches_scope_package_created',
    'dispatches',
    ['tenant_id', 'mode', 'package_id', 'created_at', 'id'],
  ],
  [
    'webhook_deliveries_scope_endpoint_created',
    'webhook_deliveries',
    ['tenant_id', 'mode', 'endpoint_id', 'created_at', 'id'],
  ],
  [
    'webhook_deliveries_scope_endpoint_status_created',
    'webhook_deliveries',
    ['tenant_id', 'mode', 'endpoint_id', 'status', 'created_at', 'id'],
  ],
  [
    'conversions_scope_status_created',
    'conversions',
    ['tenant_id', 'mode', 'status', 'created_at', 'id'],
  ],
]

/**
 * The older indexes these replace: the same leading columns without the trailing `id`, or (LRS
 * credentials) one that also held launch credentials, which the list skipped one by one.
 */
const replaced = [
  'dispatches_scope_package',
  'conversions_scope_status',
  'lrs_credentials_scope_created',
]

export function listSeekIndexesMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const [name, table, columns] of indexes) {
        await db.schema.createIndex(name).on(table).columns(columns).execute()
      }
      // The credentials list shows only credentials not issued to a launch. A partial index,
      // because PostgreSQL does not treat `launch_id is null` as an equality that fixes the
      // order, so an index leading with `launch_id` would still need a sort.
      await db.schema
        .createIndex('lrs_credentials_listed_created')
        .on('lrs_credentials')
        .columns(['tenant_id', 'mode', 'created_at', 'id'])
        .where(sql.ref('launch_id'), 'is', null)
        .execute()
      for (const name of replaced) await db.schema.dropIndex(name).execute()
    },
  }
}
