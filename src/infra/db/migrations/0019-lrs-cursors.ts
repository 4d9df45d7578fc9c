import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * Where the SCORM → xAPI statement job (jobs/scorm-statements.job.ts) has read up to: one row
 * per named cursor. The index on `sco_deliveries (updated_at, id)` lets the job read launches
 * that started or ended since its cursor with one seek instead of a scan.
 */
export function lrsCursorsMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('lrs_cursors')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('position', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('sco_deliveries_updated')
        .on('sco_deliveries')
        .columns(['updated_at', 'id'])
        .execute()
    },
  }
}
