import { DatabaseSync, type SQLInputValue } from 'node:sqlite'
import {
  CompiledQuery,
  type DatabaseConnection,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely'
import {
  BACKSTOP_WAL_PAGES,
  startWalCheckpointer,
  type WalCheckpointer,
} from './wal-checkpointer.ts'

/**
 * Kysely's SQLite dialect speaks the better-sqlite3 interface; this adapts `node:sqlite` to it
 * (DESIGN §1: no native addons).
 */
function adapt(db: DatabaseSync): SqliteDatabase {
  // Kysely asks for a statement per query; the same SQL text recurs constantly (each query
  // shape compiles to one text), so prepared statements are kept, least recently used first out.
  const cache = new Map<string, SqliteStatement>()
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql)
      if (cached) {
        cache.delete(sql)
        cache.set(sql, cached)
        return cached
      }
      const statement = prepare(db, sql)
      if (cache.size >= STATEMENT_CACHE_SIZE) {
        const oldest = cache.keys().next().value
        if (oldest !== undefined) cache.delete(oldest)
      }
      cache.set(sql, statement)
      return statement
    },
  }
}

const STATEMENT_CACHE_SIZE = 500

function prepare(db: DatabaseSync, sql: string): SqliteStatement {
  const stmt = db.prepare(sql)
  return {
    reader: stmt.columns().length > 0,
    all: (params) => stmt.all(...sqliteValues(params)),
    run: (params) => {
      const { changes, lastInsertRowid } = stmt.run(...sqliteValues(params))
      return { changes, lastInsertRowid }
    },
    iterate: (params) => stmt.iterate(...sqliteValues(params)),
  }
}

/** The parameters as node:sqlite takes them; the array itself when none needs converting. */
function sqliteValues(params: readonly unknown[]): readonly SQLInputValue[] {
  for (let i = 0; i < params.length; i++) {
    const value = params[i]
    if (typeof value === 'boolean' || value === undefined || value instanceof Date) {
      return params.map(toSqlite)
    }
  }
  return params as readonly SQLInputValue[]
}

function toSqlite(value: unknown): SQLInputValue {
  if (typeof value === 'boolean') return value ? 1 : 0
  if (value instanceof Date) return value.toISOString()
  if (value === undefined) return null
  return value as SQLInputValue
}

/**
 * Every transaction starts with BEGIN IMMEDIATE so that two processes (server and worker) never
 * deadlock upgrading a read lock to a write lock; waiting writers queue on busy_timeout instead.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #beforeClose: () => Promise<void>
  constructor(
    config: { database: () => Promise<SqliteDatabase> },
    beforeClose: () => Promise<void>,
  ) {
    super(config)
    this.#beforeClose = beforeClose
  }
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
  /**
   * The checkpointer's connection closes (and its thread exits) first, so the main connection is
   * the last one: SQLite then checkpoints and removes the -wal and -shm files as it closes, and
   * once `destroy` resolves nothing touches the database's folder any more.
   */
  override async destroy(): Promise<void> {
    await this.#beforeClose()
    await super.destroy()
  }
}

/** The adapter of a node:sqlite database, holding its one connection once it is open. */
class NodeSqliteAdapter extends SqliteAdapter {
  connection: SqliteDatabase | undefined
}

/**
 * The connection to run a statement on directly, when `db` is a transaction of a node:sqlite
 * database; undefined otherwise. A transaction holds the database's one connection until it
 * ends, so a statement run here is inside it exactly as through Kysely's executor, which adds
 * about 1.5 µs of promise hand-offs per statement (a commit runs six). Not with Kysely plugins
 * (they transform queries and results; none is configured). Never for the root executor: its
 * queries must queue for the connection behind any open transaction.
 */
export function directSqliteConnection(db: {
  isTransaction: boolean
  getExecutor(): { adapter: unknown; plugins: readonly unknown[] }
}): SqliteDatabase | undefined {
  if (!db.isTransaction) return undefined
  const { adapter, plugins } = db.getExecutor()
  return adapter instanceof NodeSqliteAdapter && plugins.length === 0
    ? adapter.connection
    : undefined
}

class NodeSqliteDialect extends SqliteDialect {
  readonly #database: () => Promise<SqliteDatabase>
  readonly #beforeClose: () => Promise<void>
  readonly #adapter: NodeSqliteAdapter
  constructor(
    database: () => Promise<SqliteDatabase>,
    beforeClose: () => Promise<void>,
    adapter: NodeSqliteAdapter,
  ) {
    super({ database })
    this.#database = database
    this.#beforeClose = beforeClose
    this.#adapter = adapter
  }
  override createDriver() {
    return new ImmediateSqliteDriver({ database: this.#database }, this.#beforeClose)
  }
  override createAdapter() {
    return this.#adapter
  }
}

/**
 * Opens `path` (a file, or `:memory:`) in WAL mode with foreign keys on; a file's WAL is
 * checkpointed by a worker thread (wal-checkpointer.ts).
 */
export function createNodeSqliteDialect(path: string): SqliteDialect {
  let checkpointer: WalCheckpointer | undefined
  const adapter = new NodeSqliteAdapter()
  return new NodeSqliteDialect(
    async () => {
      const db = new DatabaseSync(path)
      db.exec('PRAGMA journal_mode = WAL')
      db.exec('PRAGMA foreign_keys = ON')
      db.exec('PRAGMA busy_timeout = 10000')
      db.exec('PRAGMA synchronous = NORMAL')
      if (path !== ':memory:') {
        db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_WAL_PAGES}`)
        checkpointer = startWalCheckpointer(path)
      }
      adapter.connection = adapt(db)
      return adapter.connection
    },
    async () => {
      adapter.connection = undefined
      await checkpointer?.stop()
    },
    adapter,
  )
}
