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

// Compiled once: these run around every piece of a batch run again (`#eachInSavepoint`).
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
 * batch; a batch runs its pieces one after another inside one transaction. A piece that throws
 * rejects only its own caller and leaves none of its writes; every caller's promise settles after
 * the shared COMMIT: no answer goes out for data that is not yet committed. If the COMMIT itself
 * fails, every piece of the batch rejects.
 *
 * A piece runs without a savepoint of its own first: a savepoint makes SQLite copy every page the
 * piece then changes into its sub-journal, about a tenth of a runtime commit's CPU. Nearly every
 * piece that throws does so before writing (a refused commit, a lost compare-and-set), and is
 * simply left out. Only when one throws after a write (counted by the connection,
 * NodeSqliteConnection.writes) is the batch's transaction rolled back and the whole batch run
 * again with a savepoint per piece, so that piece's writes alone are undone. A piece's work may
 * therefore run twice: it must have no effect outside the transaction it is given.
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
    try {
      const outcomes = (await this.#together(batch)) ?? (await this.#eachInSavepoint(batch))
      for (const settle of outcomes) settle()
    } catch (error) {
      for (const piece of batch) piece.reject(error)
    } finally {
      this.#busy = false
      if (this.#queue.length > 0) this.#schedule()
    }
  }

  /**
   * The batch in one transaction, no savepoints; its outcomes once committed. Null, with nothing
   * committed, when a piece threw after writing (or SQLite ended the transaction under it).
   */
  async #together(batch: Pending[]): Promise<Array<() => void> | null> {
    const outcomes: Array<() => void> = []
    let undone = false
    try {
      await this.#db.transaction().execute(async (trx) => {
        const connection = directSqliteConnection(trx)
        if (!connection) {
          undone = true
          throw new Error('group commit: no node:sqlite connection to count writes on')
        }
        for (const piece of batch) {
          const writes = connection.writes
          try {
            const value = await piece.work(trx)
            outcomes.push(() => piece.resolve(value))
          } catch (error) {
            if (connection.writes !== writes || !connection.inTransaction) {
              undone = true
              throw error
            }
            outcomes.push(() => piece.reject(error))
          }
        }
      })
    } catch (error) {
      // Whatever the rollback reported: the batch runs again, piece by piece.
      if (undone) return null
      throw error
    }
    return outcomes
  }

  /** The batch in one transaction, each piece in a savepoint rolled back if it throws. */
  async #eachInSavepoint(batch: Pending[]): Promise<Array<() => void>> {
    const outcomes: Array<() => void> = []
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
    return outcomes
  }
}
