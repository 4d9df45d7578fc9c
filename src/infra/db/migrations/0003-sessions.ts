import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../schema.ts'

/** Sessions (attempts), per-SCO runtime state, SCO deliveries, and active-learner usage. */
// Long on purpose: a migration is one ordered list of DDL steps; split, the schema would no longer
// read in order.
export function sessionsMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('package_id', 'text', (c) => c.notNull().references('packages.id'))
        .addColumn('version_id', 'text', (c) => c.notNull().references('package_versions.id'))
        .addColumn('learner_id', 'text', (c) => c.notNull())
        .addColumn('learner_name', 'text', (c) => c.notNull())
        .addColumn('dispatch_id', 'text')
        .addColumn('attempt_number', 'integer', (c) => c.notNull())
        .addColumn('open', 'integer', (c) => c.notNull())
        .addColumn('scorm_version', 'text')
        .addColumn('completion_status', 'text', (c) => c.notNull())
        .addColumn('success_status', 'text', (c) => c.notNull())
        .addColumn('score_scaled', 'double precision')
        .addColumn('score_raw', 'double precision')
        .addColumn('score_min', 'double precision')
        .addColumn('score_max', 'double precision')
        .addColumn('progress_percent', 'double precision')
        .addColumn('session_time', 'text')
        .addColumn('time_spent_seconds', 'double precision', (c) => c.notNull().defaultTo(0))
        .addColumn('suspended', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('current_item_id', 'text')
        .addColumn('launch_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('last_launched_at', 'text', (c) => c.notNull())
        .addColumn('completed_at', 'text')
        .addColumn('completed_event_at', 'text')
        .addColumn('failed_event_at', 'text')
        .execute()
      // At most one open attempt per learner and package (per dispatch): launches race on this.
      await sql`create unique index sessions_one_open on sessions
        (tenant_id, mode, package_id, learner_id, coalesce(dispatch_id, '')) where open = 1`.execute(
        db,
      )
      await db.schema
        .createIndex('sessions_scope_created')
        .on('sessions')
        .columns(['tenant_id', 'mode', 'created_at', 'id'])
        .execute()
      await db.schema
        .createIndex('sessions_scope_package')
        .on('sessions')
        .columns(['tenant_id', 'mode', 'package_id', 'created_at'])
        .execute()

      await db.schema
        .createTable('sco_states')
        .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id'))
        .addColumn('item_id', 'text', (c) => c.notNull())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('carry', 'text', (c) => c.notNull())
        .addColumn('completion_status', 'text', (c) => c.notNull())
        .addColumn('success_status', 'text', (c) => c.notNull())
        .addColumn('score_scaled', 'double precision')
        .addColumn('score_raw', 'double precision')
        .addColumn('score_min', 'double precision')
        .addColumn('score_max', 'double precision')
        .addColumn('progress_measure', 'double precision')
        .addColumn('total_time', 'text')
        .addColumn('suspended', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('launched', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('sco_states_pk', ['session_id', 'item_id'])
        .execute()

      await db.schema
        .createTable('sco_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id'))
        .addColumn('item_id', 'text', (c) => c.notNull())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('launch_data', 'text', (c) => c.notNull())
        .addColumn('last_seq', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('ended_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('sco_deliveries_session')
        .on('sco_deliveries')
        .columns(['session_id', 'ended_at'])
        .execute()

      await db.schema
        .createTable('usage_learners')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('learner_id', 'text', (c) => c.notNull())
        .addColumn('first_launch_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_learners_pk', ['tenant_id', 'mode', 'period', 'learner_id'])
        .execute()
      await db.schema
        .createTable('usage_counters')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('active_learners', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_counters_pk', ['tenant_id', 'mode', 'period'])
        .execute()
    },
  }
}
