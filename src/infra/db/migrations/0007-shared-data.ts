import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/** SCORM 2004 shared data buckets (adl.data), shared between the SCOs that map them. */
export function sharedDataMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('shared_data')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        .addColumn('store', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('shared_data_pk', ['tenant_id', 'mode', 'scope', 'target_id'])
        .execute()
    },
  }
}
