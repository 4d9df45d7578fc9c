import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * The server decides SCORM 2004 navigation (issue 14, modules/runtime/navigation.service.ts):
 * `sequencing_version` is the compare-and-set position of the attempt's tracking state (every
 * write of `sequencing_state` moves it on; a navigation writes only where it is still the one it
 * read, so two tabs or a replayed request cannot fork the attempt), and
 * `sequencing_delivery_id` is the delivery the sequencer launched last: the one a navigation
 * request leaves, and the only one `POST …/deliveries` may relaunch.
 */
export function sequencingNavigationMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('sessions')
        .addColumn('sequencing_version', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      await db.schema.alterTable('sessions').addColumn('sequencing_delivery_id', 'text').execute()
    },
  }
}
