import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * LRS (docs/lrs.md):
 * - `lrs_credentials.xapi_version`: the xAPI version that answers a credential's requests sent
 *   without `X-Experience-API-Version` (default `2.0.0`; `1.0.3` for credentials made for
 *   1.0.3-era content).
 * - SQLite: `lrs_statement_index` becomes a WITHOUT ROWID table. Its primary key is the only
 *   way it is read (every filter seeks `(tenant_id, mode, kind, value, stored, statement_id)`), so
 *   the rowid table beside that key was a second B-tree written for nothing: each statement
 *   writes several index rows, and this halves the pages they touch. PostgreSQL keeps its heap.
 * - `agent_rel` / `activity_rel` index rows that repeat a direct `agent` / `activity` row of the
 *   same statement are deleted: the related_* filters now read both kinds, and new statements no
 *   longer write the repeats (modules/lrs/statement.indexer.ts, `compactEntries`).
 */
export function lrsVersionsAndSeeksMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('lrs_credentials')
        .addColumn('xapi_version', 'text', (c) => c.notNull().defaultTo('2.0.0'))
        .execute()
      for (const [rel, direct] of [
        ['agent_rel', 'agent'],
        ['activity_rel', 'activity'],
      ]) {
        await sql`delete from lrs_statement_index
          where kind = ${rel} and exists (
            select 1 from lrs_statement_index j
            where j.tenant_id = lrs_statement_index.tenant_id
              and j.mode = lrs_statement_index.mode and j.kind = ${direct}
              and j.value = lrs_statement_index.value and j.stored = lrs_statement_index.stored
              and j.statement_id = lrs_statement_index.statement_id)`.execute(db)
      }
      if (dialect !== 'sqlite') return
      await db.schema
        .createTable('lrs_statement_index_new')
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
        .modifyEnd(sql`without rowid`)
        .execute()
      await sql`insert into lrs_statement_index_new
        select tenant_id, mode, kind, value, stored, statement_id from lrs_statement_index`.execute(
        db,
      )
      await db.schema.dropTable('lrs_statement_index').execute()
      await db.schema
        .alterTable('lrs_statement_index_new')
        .renameTo('lrs_statement_index')
        .execute()
    },
  }
}
