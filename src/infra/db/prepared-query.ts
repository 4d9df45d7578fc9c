import type { Compilable, CompiledQuery, DialectAdapter } from 'kysely'
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
type Slot = { field: string } | { fixed: unknown }

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
  const compiled = new WeakMap<DialectAdapter, { query: CompiledQuery<Row>; slots: Slot[] }>()

  function bind(db: Executor, params: Params): CompiledQuery<Row> {
    // Root and transaction executors of one database share their adapter.
    const adapter = db.getExecutor().adapter
    let entry = compiled.get(adapter)
    if (!entry) {
      entry = compile(db, build)
      compiled.set(adapter, entry)
    }
    const values = params as Record<string, unknown>
    const parameters = entry.slots.map((slot) =>
      'field' in slot ? values[slot.field] : slot.fixed,
    )
    return { ...entry.query, parameters }
  }

  // Inside a node:sqlite transaction, straight on its connection (directSqliteConnection).
  async function all(db: Executor, params: Params): Promise<Row[]> {
    const query = bind(db, params)
    const direct = directSqliteConnection(db)
    if (direct) return direct.prepare(query.sql).all(query.parameters) as Row[]
    return (await db.executeQuery(query)).rows
  }

  return {
    all,
    async first(db, params) {
      return (await all(db, params))[0]
    },
    async run(db, params) {
      const query = bind(db, params)
      const direct = directSqliteConnection(db)
      if (!direct) return Number((await db.executeQuery(query)).numAffectedRows ?? 0n)
      // As Kysely's SQLite driver: a statement that returns rows reports no affected count.
      const statement = direct.prepare(query.sql)
      if (statement.reader) {
        statement.all(query.parameters)
        return 0
      }
      return Number(statement.run(query.parameters).changes)
    },
  }
}

function compile<Params extends object, Row>(
  db: Executor,
  build: Build<Params, Row>,
): { query: CompiledQuery<Row>; slots: Slot[] } {
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
      return { field }
    }
    return { fixed: value }
  })
  const unbound = [...read].filter((field) => !bound.has(field))
  if (unbound.length > 0) {
    throw new Error(`preparedQuery: ${unbound.join(', ')} must be used as query values`)
  }
  return { query, slots }
}
