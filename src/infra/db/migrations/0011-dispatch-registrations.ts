import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * Dispatch launches that prove who they are (docs/dispatch.md): a wrapper generation (exporting
 * with revocation raises it, so older wrappers stop working), a per-minute window of launches
 * that took a new seat or registration (the rate limit) with its counters, and the learner
 * registrations, each known by the hash of the key its wrapper keeps in the client LMS.
 */
export function dispatchRegistrationsMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const columns: Array<[string, 'integer' | 'text', boolean]> = [
        ['wrapper_generation', 'integer', true],
        ['new_learner_window', 'text', false],
        ['new_learner_window_count', 'integer', true],
        ['separated_count', 'integer', true],
        ['rate_limited_count', 'integer', true],
      ]
      for (const [name, type, counter] of columns) {
        await db.schema
          .alterTable('dispatches')
          .addColumn(name, type, (c) => (counter ? c.notNull().defaultTo(0) : c))
          .execute()
      }
      await db.schema
        .createTable('dispatch_registrations')
        .addColumn('dispatch_id', 'text', (c) => c.notNull().references('dispatches.id'))
        .addColumn('key_hash', 'text', (c) => c.notNull())
        .addColumn('lms_learner_id', 'text', (c) => c.notNull())
        .addColumn('learner_id', 'text', (c) => c.notNull())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_launch_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('dispatch_registrations_pk', ['dispatch_id', 'key_hash'])
        .execute()
      // "Has this LMS learner a registration already?" on every launch without a valid key.
      await db.schema
        .createIndex('dispatch_registrations_learner')
        .on('dispatch_registrations')
        .columns(['dispatch_id', 'lms_learner_id'])
        .execute()
    },
  }
}
