import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../schema.ts'

/** Tenancy, packages, the audit outbox and request bookkeeping. */
// Long on purpose: a migration is one ordered list of DDL steps; split, the schema would no longer
// read in order.
export function initialMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('plans')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('active_learner_allotment', 'integer', (c) => c.notNull())
        .addColumn('monthly_conversions', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('tenants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('plan_id', 'text', (c) => c.notNull().references('plans.id'))
        .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('key_hint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .addColumn('last_used_at', 'text')
        .execute()

      await db.schema
        .createTable('packages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('scorm_version', 'text')
        .addColumn('active_version_id', 'text')
        .addColumn('latest_version_number', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('archived_at', 'text')
        .execute()
      await db.schema
        .createIndex('packages_scope_created')
        .on('packages')
        .columns(['tenant_id', 'mode', 'created_at', 'id'])
        .execute()
      await db.schema
        .createTable('package_versions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('package_id', 'text', (c) => c.notNull().references('packages.id'))
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('version_number', 'integer', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('scorm_version', 'text')
        .addColumn('edition', 'text')
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('manifest', 'text', (c) => c.notNull())
        .addColumn('file_count', 'integer', (c) => c.notNull())
        .addColumn('total_bytes', 'bigint', (c) => c.notNull())
        .addColumn('blob_prefix', 'text', (c) => c.notNull())
        .addColumn('zip_blob_key', 'text', (c) => c.notNull())
        .addColumn('original_filename', 'text', (c) => c.notNull())
        .addColumn('uploaded_by', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('activated_at', 'text')
        .addUniqueConstraint('package_versions_number', ['package_id', 'version_number'])
        .execute()
      await db.schema
        .createTable('upload_intents')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('storage_path', 'text', (c) => c.notNull().unique())
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('file_size', 'bigint', (c) => c.notNull())
        .addColumn('uploaded_by', 'text')
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('consumed_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()

      await db.schema
        .createTable('audit_events')
        .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('entity_type', 'text')
        .addColumn('entity_id', 'text')
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('occurred_at', 'text', (c) => c.notNull())
        .addColumn('fanned_out_at', 'text')
        .execute()
      await db.schema
        .createIndex('audit_events_pending_fanout')
        .on('audit_events')
        .columns(['fanned_out_at', 'seq'])
        .execute()
      await db.schema
        .createIndex('audit_events_scope')
        .on('audit_events')
        .columns(['tenant_id', 'mode', 'occurred_at'])
        .execute()

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['tenant_id', 'mode', 'key'])
        .execute()
      await db.schema
        .createTable('rate_limits')
        .addColumn('bucket', 'text', (c) => c.primaryKey())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .execute()

      const now = new Date().toISOString()
      await sql`insert into plans (id, name, active_learner_allotment, monthly_conversions, created_at)
        values ('sandbox', 'Sandbox', 10, 2, ${now}),
               ('growth', 'Growth', 1000, 100, ${now}),
               ('scale', 'Scale', 10000, 1000, ${now}),
               ('enterprise', 'Enterprise', 100000, null, ${now})`.execute(db)
    },
  }
}
