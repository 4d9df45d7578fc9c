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
 * A node:sqlite connection as Kysely's SQLite dialect takes it (the better-sqlite3 interface;
 * DESIGN §1: no native addons), counting the statements that may have written.
 */
export class NodeSqliteConnection implements SqliteDatabase {
  readonly #db: DatabaseSync
  // Kysely asks for a statement per query; the same SQL text recurs constantly (each query
  // shape compiles to one text), so prepared statements are kept, least recently used first out.
  readonly #cache = new Map<string, SqliteStatement>()
  /**
   * Statements run so far that may have written: every one but a `select`, and an `insert`,
   * `update` or `delete` only when it changed a row. A statement that changed no row wrote
   * nothing while no `before` trigger writes (the schema has none on SQLite), and one that
   * fails undoes its own changes (conflict resolution ABORT). Compared before and after some
   * work, it tells whether that work left anything to undo (group-commit.ts).
   */
  writes = 0

  constructor(db: DatabaseSync) {
    this.#db = db
  }

  /** Whether a transaction is open: SQLite ends one itself after some errors (a full disk). */
  get inTransaction(): boolean {
    return this.#db.isTransaction
  }

  close(): void {
    this.#db.close()
  }

  prepare(sql: string): SqliteStatement {
    const cached = this.#cache.get(sql)
    if (cached) {
      this.#cache.delete(sql)
      this.#cache.set(sql, cached)
      return cached
    }
    const statement = this.#prepare(sql)
    if (this.#cache.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.#cache.keys().next().value
      if (oldest !== undefined) this.#cache.delete(oldest)
    }
    this.#cache.set(sql, statement)
    return statement
  }

  #prepare(sql: string): SqliteStatement {
    const stmt = this.#db.prepare(sql)
    const kind = statementKind(sql)
    return {
      reader: stmt.columns().length > 0,
      all: (params) => {
        const rows = stmt.all(...sqliteValues(params))
        // A row returned by a write (`returning`) is a row it changed.
        if (kind === 'other' || (kind === 'change' && rows.length > 0)) this.writes++
        return rows
      },
      run: (params) => {
        const { changes, lastInsertRowid } = stmt.run(...sqliteValues(params))
        if (kind === 'other' || (kind === 'change' && Number(changes) > 0)) this.writes++
        return { changes, lastInsertRowid }
      },
      iterate: (params) => {
        if (kind !== 'select') this.writes++
        return stmt.iterate(...sqliteValues(params))
      },
    }
  }
}

const STATEMENT_CACHE_SIZE = 500

/** What a statement may do, by its first word; anything unrecognised is taken to write. */
function statementKind(sql: string): 'select' | 'change' | 'other' {
  const word = /^\s*([a-z]+)/i.exec(sql)?.[1]?.toLowerCase()
  if (word === 'select') return 'select'
  if (word === 'insert' || word === 'update' || word === 'delete') return 'change'
  return 'other'
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
  connection: NodeSqliteConnection | undefined
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
}): NodeSqliteConnection | undefined {
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
      adapter.connection = new NodeSqliteConnection(db)
      return adapter.connection
    },
    async () => {
      adapter.connection = undefined
      await checkpointer?.stop()
    },
    adapter,
  )
}
