import {
  CompiledQuery,
  type Kysely,
  type SqliteDatabase,
  type SqliteStatement,
  type Transaction,
} from 'kysely'
import type { Db } from './database.ts'
import { directSqliteConnection } from './node-sqlite-dialect.ts'
import type { Database } from './schema.ts'

export type TransactionWork<T> = (trx: Transaction<Database>) => Promise<T>

/** Runs small write transactions, each as if on its own: all of its writes or none. */
export interface TransactionRunner {
  run<T>(work: TransactionWork<T>): Promise<T>
}

interface Pending {
  work: TransactionWork<unknown>
  resolve(value: unknown): void
  reject(error: unknown): void
}

// Compiled once: these run around every piece.
const SAVEPOINT = CompiledQuery.raw('savepoint group_piece')
const ROLLBACK_TO = CompiledQuery.raw('rollback to group_piece')
const RELEASE = CompiledQuery.raw('release group_piece')

/** Runs one of the above in the batch's transaction (on its connection when node:sqlite). */
async function around(trx: Transaction<Database>, query: CompiledQuery): Promise<void> {
  const direct = directSqliteConnection(trx)
  if (direct) statementOf(direct, query.sql).run(NO_PARAMETERS)
  else await trx.executeQuery(query)
}

const NO_PARAMETERS: readonly unknown[] = []
/** node:sqlite: the connection's statements of the above, kept here (each runs per piece). */
const statements = new WeakMap<SqliteDatabase, Map<string, SqliteStatement>>()

function statementOf(connection: SqliteDatabase, sql: string): SqliteStatement {
  let known = statements.get(connection)
  if (!known) {
    known = new Map()
    statements.set(connection, known)
  }
  let statement = known.get(sql)
  if (!statement) {
    statement = connection.prepare(sql)
    known.set(sql, statement)
  }
  return statement
}

/** Pieces of work written in one SQLite transaction, at most. */
const DEFAULT_MAX_BATCH = 128

/**
 * Group commit for many small, frequent write transactions (runtime commits).
 *
 * SQLite has one writer, and most of a small transaction's cost is its COMMIT (the WAL frames
 * of every page touched). Here work handed in while the database is busy waits for the next
 * batch; a batch runs its pieces one after another inside one transaction, each in its own
 * savepoint, so a piece that throws rolls back only its own writes and rejects only its own
 * caller. Every caller's promise settles after the shared COMMIT: no answer goes out for data
 * that is not yet committed. If the COMMIT itself fails, every piece of the batch rejects.
 *
 * PostgreSQL gets a plain transaction per piece: its pool already runs them side by side, and
 * one shared transaction would hold the row locks of unrelated sessions together. (Most runtime
 * commits do not come here on PostgreSQL: those that fit one statement are batched into one
 * without a transaction, runtime/commit-batches.ts.)
 */
export function createTransactionRunner(
  db: Db,
  options: { maxBatch?: number } = {},
): TransactionRunner {
  if (db.dialect === 'postgres') {
    return { run: (work) => db.kysely.transaction().execute(work) }
  }
  return new GroupCommit(db.kysely, options.maxBatch ?? DEFAULT_MAX_BATCH)
}

class GroupCommit implements TransactionRunner {
  readonly #db: Kysely<Database>
  readonly #maxBatch: number
  #queue: Pending[] = []
  #busy = false

  constructor(db: Kysely<Database>, maxBatch: number) {
    this.#db = db
    this.#maxBatch = maxBatch
  }

  run<T>(work: TransactionWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
      this.#schedule()
    })
  }

  // setImmediate, not a microtask: requests read in the same turn of the event loop join the
  // batch, and a batch never starts inside the caller's own stack.
  #schedule(): void {
    if (this.#busy) return
    this.#busy = true
    setImmediate(() => void this.#flush())
  }

  async #flush(): Promise<void> {
    const batch = this.#queue.splice(0, this.#maxBatch)
    const outcomes: Array<() => void> = []
    try {
      await this.#db.transaction().execute(async (trx) => {
        for (const piece of batch) {
          await around(trx, SAVEPOINT)
          try {
            const value = await piece.work(trx)
            outcomes.push(() => piece.resolve(value))
          } catch (error) {
            await around(trx, ROLLBACK_TO)
            outcomes.push(() => piece.reject(error))
          }
          await around(trx, RELEASE)
        }
      })
      for (const settle of outcomes) settle()
    } catch (error) {
      for (const piece of batch) piece.reject(error)
    } finally {
      this.#busy = false
      if (this.#queue.length > 0) this.#schedule()
    }
  }
}
