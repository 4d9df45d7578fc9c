import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * cmi5 and Tin Can launches (modules/cmi5): registrations with their moveOn state, AU launches
 * with their one-time fetch URL, and LRS credentials limited to one launch and a lifetime
 * (`launch_id`, `expires_at`; null for the credentials made through the API).
 */
export function cmi5Migration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('lrs_credentials').addColumn('launch_id', 'text').execute()
      await db.schema.alterTable('lrs_credentials').addColumn('expires_at', 'text').execute()

      await db.schema
        .createTable('cmi5_registrations')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('package_id', 'text', (c) => c.notNull())
        .addColumn('version_id', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('learner_id', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('cmi5_registrations_pk', ['tenant_id', 'mode', 'id'])
        .execute()
      await db.schema
        .createIndex('cmi5_registrations_session')
        .on('cmi5_registrations')
        .columns(['session_id'])
        .execute()

      await db.schema
        .createTable('cmi5_launches')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull().primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('registration_id', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('au_index', 'integer', (c) => c.notNull())
        .addColumn('activity_id', 'text', (c) => c.notNull())
        .addColumn('launch_mode', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('fetch_hash', 'text', (c) => c.notNull())
        .addColumn('fetched_at', 'text')
        .addColumn('preferences_read', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('verbs', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('credential_id', 'text')
        .addColumn('launched_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('cmi5_launches_registration')
        .on('cmi5_launches')
        .columns(['tenant_id', 'mode', 'registration_id', 'launched_at'])
        .execute()
    },
  }
}
