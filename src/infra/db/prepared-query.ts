import type {
  Compilable,
  CompiledQuery,
  DialectAdapter,
  SqliteDatabase,
  SqliteStatement,
} from 'kysely'
import { directSqliteConnection } from './node-sqlite-dialect.ts'
import type { Executor } from './schema.ts'

type Build<Params extends object, Row> = (db: Executor, params: Params) => Compilable<Row>

export interface PreparedQuery<Params extends object, Row> {
  /** Every row the query returns. */
  all(db: Executor, params: Params): Promise<Row[]>
  /** The first row, or undefined. */
  first(db: Executor, params: Params): Promise<Row | undefined>
  /** How many rows an UPDATE, INSERT or DELETE changed. */
  run(db: Executor, params: Params): Promise<number>
}

/** Where a compiled query's parameter comes from: a field of the caller's params, or fixed. */
interface Slot {
  /** The field of the caller's params; undefined for a fixed value. */
  field: string | undefined
  fixed: unknown
}

interface Compiled<Row> {
  query: CompiledQuery<Row>
  slots: Slot[]
  /** node:sqlite: the statement per connection, prepared on first use. */
  statements: WeakMap<SqliteDatabase, SqliteStatement>
}

const PLACEHOLDER = '\u0000courseport-param:'

/**
 * A query built and compiled once per dialect, then run with fresh parameters: for the hottest
 * path (runtime commits), where building and compiling a Kysely query costs more than SQLite
 * takes to run it. `build` runs once, with a stand-in whose every field is a placeholder, so it
 * must use each field only as a value — never to decide the query's shape (no `if (p.x)`).
 * A field read by `build` that does not come out as a parameter of the query is an error.
 */
export function preparedQuery<Params extends object, Row>(
  build: Build<Params, Row>,
): PreparedQuery<Params, Row> {
  const compiled = new WeakMap<DialectAdapter, Compiled<Row>>()

  function entryOf(db: Executor): Compiled<Row> {
    // Root and transaction executors of one database share their adapter.
    const adapter = db.getExecutor().adapter
    let entry = compiled.get(adapter)
    if (!entry) {
      entry = compile(db, build)
      compiled.set(adapter, entry)
    }
    return entry
  }

  function bind(entry: Compiled<Row>, params: Params): CompiledQuery<Row> {
    return { ...entry.query, parameters: parametersOf(entry.slots, params) }
  }

  /**
   * Inside a node:sqlite transaction, the statement to run straight on its connection
   * (directSqliteConnection). Kept per connection here rather than looked up by SQL text in the
   * connection's statement cache on every run: a commit runs this several times.
   */
  function directStatement(db: Executor, entry: Compiled<Row>): SqliteStatement | undefined {
    const direct = directSqliteConnection(db)
    if (!direct) return undefined
    let statement = entry.statements.get(direct)
    if (!statement) {
      statement = direct.prepare(entry.query.sql)
      entry.statements.set(direct, statement)
    }
    return statement
  }

  async function all(db: Executor, params: Params): Promise<Row[]> {
    const entry = entryOf(db)
    const statement = directStatement(db, entry)
    if (statement) return statement.all(parametersOf(entry.slots, params)) as Row[]
    return (await db.executeQuery(bind(entry, params))).rows
  }

  return {
    all,
    async first(db, params) {
      return (await all(db, params))[0]
    },
    async run(db, params) {
      const entry = entryOf(db)
      const statement = directStatement(db, entry)
      if (!statement) {
        return Number((await db.executeQuery(bind(entry, params))).numAffectedRows ?? 0n)
      }
      // As Kysely's SQLite driver: a statement that returns rows reports no affected count.
      const parameters = parametersOf(entry.slots, params)
      if (statement.reader) {
        statement.all(parameters)
        return 0
      }
      return Number(statement.run(parameters).changes)
    },
  }
}

function parametersOf(slots: readonly Slot[], params: object): unknown[] {
  const values = params as Record<string, unknown>
  const parameters = new Array<unknown>(slots.length)
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i] as Slot
    parameters[i] = slot.field === undefined ? slot.fixed : values[slot.field]
  }
  return parameters
}

function compile<Params extends object, Row>(
  db: Executor,
  build: Build<Params, Row>,
): Compiled<Row> {
  const read = new Set<string>()
  const standIn = new Proxy({} as Params, {
    get(_target, field) {
      if (typeof field !== 'string') return undefined
      read.add(field)
      return `${PLACEHOLDER}${field}`
    },
  })
  const query = build(db, standIn).compile()
  const bound = new Set<string>()
  const slots = query.parameters.map((value): Slot => {
    if (typeof value === 'string' && value.startsWith(PLACEHOLDER)) {
      const field = value.slice(PLACEHOLDER.length)
      bound.add(field)
      return { field, fixed: undefined }
    }
    return { field: undefined, fixed: value }
  })
  const unbound = [...read].filter((field) => !bound.has(field))
  if (unbound.length > 0) {
    throw new Error(`preparedQuery: ${unbound.join(', ')} must be used as query values`)
  }
  return { query, slots, statements: new WeakMap() }
}
