import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../schema.ts'

/**
 * PostgreSQL: the sessions list by `updated_at` seeks `session_activity` instead of two indexes
 * on `sessions`. Every runtime commit moves its session's `updated_at`; while `sessions` indexed
 * it, PostgreSQL could not update the row in place (a HOT update needs every indexed column
 * unchanged), so each commit wrote a new entry into every one of the table's ten indexes, about
 * half of what a commit cost the database (issue 15, bench/README.md). `session_activity` holds
 * one narrow row per session (its scope, package and `updated_at`) with the two list indexes;
 * a commit now rewrites that row's three index entries, and the session row in place.
 *
 * Triggers keep it in step with `sessions`, in the statement that writes the session, whatever
 * writes it (a launch, a commit, a navigation, the one-statement commits of
 * commit-statement.cross-tenant.repository.ts, a bench's bulk insert). Sessions are never
 * deleted; their tenant, mode and package never change.
 *
 * SQLite keeps the two indexes on `sessions`: its UPDATE rewrites only the indexes whose columns
 * it changes, and the extra row and trigger cost a commit there about 4 µs for nothing.
 */
export function sessionActivityMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return
      await db.schema
        .createTable('session_activity')
        .addColumn('session_id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('package_id', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await sql`insert into session_activity (session_id, tenant_id, mode, package_id, updated_at)
        select id, tenant_id, mode, package_id, updated_at from sessions`.execute(db)
      await db.schema
        .createIndex('session_activity_scope_updated')
        .on('session_activity')
        .columns(['tenant_id', 'mode', 'updated_at', 'session_id'])
        .execute()
      await db.schema
        .createIndex('session_activity_scope_package_updated')
        .on('session_activity')
        .columns(['tenant_id', 'mode', 'package_id', 'updated_at', 'session_id'])
        .execute()
      await db.schema.dropIndex('sessions_scope_updated').execute()
      await db.schema.dropIndex('sessions_scope_package_updated').execute()
      await triggers(db)
    },
  }
}

async function triggers(db: Kysely<unknown>): Promise<void> {
  await sql`create function sessions_activity_insert() returns trigger language plpgsql as $$
    begin
      insert into session_activity (session_id, tenant_id, mode, package_id, updated_at)
      values (new.id, new.tenant_id, new.mode, new.package_id, new.updated_at);
      return null;
    end $$`.execute(db)
  await sql`create trigger sessions_activity_insert after insert on sessions
    for each row execute function sessions_activity_insert()`.execute(db)
  await sql`create function sessions_activity_update() returns trigger language plpgsql as $$
    begin
      update session_activity set updated_at = new.updated_at where session_id = new.id;
      return null;
    end $$`.execute(db)
  await sql`create trigger sessions_activity_update after update of updated_at on sessions
    for each row when (new.updated_at is distinct from old.updated_at)
    execute function sessions_activity_update()`.execute(db)
}
