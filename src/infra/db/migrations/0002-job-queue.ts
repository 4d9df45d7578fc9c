import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/** The table-backed job queue (DESIGN §9) and its schedules. */
export function jobQueueMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('task', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('job_key', 'text', (c) => c.unique())
        .addColumn('run_at', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('lease_until', 'text')
        .addColumn('lease_token', 'text')
        .addColumn('last_error', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      // Claims scan `status = 'pending' AND run_at <= now ORDER BY run_at, id`.
      await db.schema
        .createIndex('jobs_ready')
        .on('jobs')
        .columns(['status', 'run_at', 'id'])
        .execute()
      await db.schema
        .createTable('job_schedules')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('task', 'text', (c) => c.notNull())
        .addColumn('interval_seconds', 'integer', (c) => c.notNull())
        .addColumn('next_run_at', 'text', (c) => c.notNull())
        .addColumn('last_run_at', 'text')
        .execute()
    },
  }
}
