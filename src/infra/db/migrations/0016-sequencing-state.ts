import type { Kysely } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * SCORM 2004 sequencing state (modules/sessions/session-sequencing.ts): each attempt's tracking
 * state as JSON on its session row (written with the commit that changes it, under the commit's
 * compare-and-set), and global objectives (objective maps), scoped like shared data: the
 * learner's across courses (`learner:{id}`, objectivesGlobalToSystem, the default) or one
 * attempt's (`session:{id}`).
 */
export function sequencingStateMigration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('sessions').addColumn('sequencing_state', 'text').execute()
      await db.schema
        .createTable('global_objectives')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('objective_id', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('global_objectives_pk', [
          'tenant_id',
          'mode',
          'scope',
          'objective_id',
        ])
        .execute()
    },
  }
}
