import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/** .pptx conversion jobs and the monthly conversion allowance counters. */
export function conversionsMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('conversions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('source_filename', 'text', (c) => c.notNull())
        .addColumn('source_format', 'text', (c) => c.notNull())
        .addColumn('source_bytes', 'bigint', (c) => c.notNull())
        .addColumn('source_blob_key', 'text', (c) => c.notNull())
        .addColumn('target_scorm_version', 'text', (c) => c.notNull())
        .addColumn('slide_count', 'integer', (c) => c.notNull())
        .addColumn('hidden_slide_count', 'integer', (c) => c.notNull())
        .addColumn('progress_done', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('package_id', 'text')
        .addColumn('error', 'text')
        .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('rendering', 'text')
        .addColumn('queue_job_id', 'text', (c) => c.notNull())
        .addColumn('allowance_period', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .execute()
      // Lists are newest first per tenant and mode, optionally by status.
      await db.schema
        .createIndex('conversions_scope_created')
        .on('conversions')
        .columns(['tenant_id', 'mode', 'created_at', 'id'])
        .execute()
      await db.schema
        .createIndex('conversions_scope_status')
        .on('conversions')
        .columns(['tenant_id', 'mode', 'status', 'created_at'])
        .execute()
      await db.schema
        .createTable('conversion_allowances')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('conversion_allowances_pk', ['tenant_id', 'period'])
        .execute()
    },
  }
}
