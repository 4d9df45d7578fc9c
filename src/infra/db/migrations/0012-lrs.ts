import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

// Long on purpose: a migration is one ordered list of DDL steps; split, the schema would no longer
// read in order.
/**
 * The built-in LRS (DESIGN §12): one store for every tenant and mode. Statements are immutable
 * rows (only `voided` changes); `lrs_statement_index` holds one row per filterable value so each
 * query filter seeks an index that starts with it.
 */
export function lrsMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('lrs_credentials')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull().unique())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .execute()
      await db.schema
        .createIndex('lrs_credentials_scope_created')
        .on('lrs_credentials')
        .columns(['tenant_id', 'mode', 'created_at', 'id'])
        .execute()

      await db.schema
        .createTable('lrs_statements')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('stored', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'text', (c) => c.notNull())
        .addColumn('verb_id', 'text', (c) => c.notNull())
        .addColumn('voided', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('voids', 'text')
        .addColumn('credential_id', 'text')
        .addColumn('statement', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('lrs_statements_pk', ['tenant_id', 'mode', 'id'])
        .execute()
      await db.schema
        .createIndex('lrs_statements_scope_stored')
        .on('lrs_statements')
        .columns(['tenant_id', 'mode', 'stored', 'id'])
        .execute()

      await db.schema
        .createTable('lrs_statement_index')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('stored', 'text', (c) => c.notNull())
        .addColumn('statement_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('lrs_statement_index_pk', [
          'tenant_id',
          'mode',
          'kind',
          'value',
          'stored',
          'statement_id',
        ])
        .execute()

      await db.schema
        .createTable('lrs_attachments')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('sha2', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('lrs_attachments_pk', ['tenant_id', 'mode', 'sha2'])
        .execute()

      await db.schema
        .createTable('lrs_activities')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('activity_id', 'text', (c) => c.notNull())
        .addColumn('definition', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('lrs_activities_pk', ['tenant_id', 'mode', 'activity_id'])
        .execute()

      await db.schema
        .createTable('lrs_documents')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('activity_id', 'text', (c) => c.notNull())
        .addColumn('agent_key', 'text', (c) => c.notNull())
        .addColumn('registration', 'text', (c) => c.notNull())
        .addColumn('document_id', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('etag', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('lrs_documents_pk', [
          'tenant_id',
          'mode',
          'kind',
          'activity_id',
          'agent_key',
          'registration',
          'document_id',
        ])
        .execute()
      await db.schema
        .createIndex('lrs_documents_updated')
        .on('lrs_documents')
        .columns([
          'tenant_id',
          'mode',
          'kind',
          'activity_id',
          'agent_key',
          'registration',
          'updated_at',
        ])
        .execute()
    },
  }
}
