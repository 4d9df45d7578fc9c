import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { Kysely, PostgresDialect } from 'kysely'
import { Migrator } from 'kysely/migration'
import pg from 'pg'
import { translatingPool } from './database-unavailable.ts'
import { migrationProvider } from './migrations/index.ts'
import { createNodeSqliteDialect } from './node-sqlite-dialect.ts'
import type { Database, Dialect } from './schema.ts'

export interface Db {
  kysely: Kysely<Database>
  dialect: Dialect
  close(): Promise<void>
}

export interface OpenDatabaseOptions {
  /** PostgreSQL connections held by this process at most (DATABASE_POOL_SIZE). Default 10. */
  poolSize?: number
  /**
   * How long opening one PostgreSQL connection may take before the query fails with
   * `database_unavailable` (DATABASE_CONNECT_TIMEOUT_MS). Default 5 000 ms.
   */
  connectTimeoutMs?: number
}

/**
 * Opens the database named by `url`: `postgres://…` / `postgresql://…`, or `sqlite:PATH`
 * (`sqlite::memory:` for an in-memory database). A bare path is treated as SQLite. An
 * unreachable PostgreSQL fails queries with AppError `database_unavailable` (503).
 */
export function openDatabase(url: string, options: OpenDatabaseOptions = {}): Db {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    })
    // An idle connection closed by the server (restart, failover, admin) must not crash the
    // process: the pool drops it and the next query opens a new one.
    pool.on('error', () => {})
    // The same for a connection in use (the pool listens only while it is idle): its query fails
    // and is answered as a database error; the pool discards the connection when it comes back.
    pool.on('connect', (client) => client.on('error', () => {}))
    const kysely = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: translatingPool(pool) }),
    })
    return { kysely, dialect: 'postgres', close: () => kysely.destroy() }
  }
  const path = url.replace(/^sqlite:(\/\/)?/, '')
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const kysely = new Kysely<Database>({ dialect: createNodeSqliteDialect(path) })
  return { kysely, dialect: 'sqlite', close: () => kysely.destroy() }
}

/** Brings the schema to the latest migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db: db.kysely, provider: migrationProvider(db.dialect) })
  const { error, results } = await migrator.migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`)
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
