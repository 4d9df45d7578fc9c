import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/** Dispatches, their licence seats (one row per admitted learner) and tags. */
// Long on purpose: a migration is one ordered list of DDL steps; split, the schema would no longer
// read in order.
export function dispatchesMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('dispatches')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('package_id', 'text', (c) => c.notNull().references('packages.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('license_limit', 'integer')
        .addColumn('expires_at', 'text')
        .addColumn('allowed_domains', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('learner_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('launch_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('refusal_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('paused_at', 'text')
        .addColumn('archived_at', 'text')
        .addColumn('deleted_at', 'text')
        .addColumn('expired_event_at', 'text')
        .execute()
      await db.schema
        .createIndex('dispatches_scope_created')
        .on('dispatches')
        .columns(['tenant_id', 'mode', 'created_at', 'id'])
        .execute()
      await db.schema
        .createIndex('dispatches_scope_package')
        .on('dispatches')
        .columns(['tenant_id', 'mode', 'package_id', 'created_at'])
        .execute()
      // The expiry job looks for passed expiries whose event is not recorded yet.
      await db.schema
        .createIndex('dispatches_expiry')
        .on('dispatches')
        .columns(['expired_event_at', 'expires_at'])
        .execute()

      await db.schema
        .createTable('dispatch_learners')
        .addColumn('dispatch_id', 'text', (c) => c.notNull().references('dispatches.id'))
        .addColumn('learner_id', 'text', (c) => c.notNull())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('first_launch_at', 'text', (c) => c.notNull())
        .addColumn('last_launch_at', 'text', (c) => c.notNull())
        .addColumn('launch_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('dispatch_learners_pk', ['dispatch_id', 'learner_id'])
        .execute()

      await db.schema
        .createTable('dispatch_tags')
        .addColumn('dispatch_id', 'text', (c) => c.notNull().references('dispatches.id'))
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('tag', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('dispatch_tags_pk', ['dispatch_id', 'tag'])
        .execute()
      await db.schema
        .createIndex('dispatch_tags_scope_tag')
        .on('dispatch_tags')
        .columns(['tenant_id', 'mode', 'tag'])
        .execute()

      // Reports per dispatch (GET /sessions?dispatch_id=, completions on the dispatch record).
      await db.schema
        .createIndex('sessions_scope_dispatch')
        .on('sessions')
        .columns(['tenant_id', 'mode', 'dispatch_id', 'created_at'])
        .execute()
    },
  }
}
