import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import {
  createTestDatabase,
  DATABASE_TARGETS,
  POSTGRES_ADMIN_URL,
  type TestDatabase,
} from '../../helpers/database.ts'

// PostgreSQL ends a backend on a restart, a failover or an administrator's command, also while
// the connection is checked out between two statements of a transaction. That transaction must
// fail like any database error; the process must not crash on the connection's 'error' event,
// and the next query must get a fresh connection.
const postgres = DATABASE_TARGETS.find((t) => t.dialect === 'postgres')

async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  await admin.connect()
  try {
    await admin.query('select pg_terminate_backend($1)', [pid])
  } finally {
    await admin.end()
  }
}

test('a PostgreSQL connection ended inside a transaction fails it and nothing else', {
  skip: postgres?.skip,
}, async (t) => {
  let database: TestDatabase | undefined
  t.after(async () => database?.dispose())
  database = await createTestDatabase('postgres')
  const { kysely } = database.db
  const uncaught: unknown[] = []
  const onUncaught = (err: unknown) => uncaught.push(err)
  process.on('uncaughtException', onUncaught)
  t.after(() => process.off('uncaughtException', onUncaught))

  const outcome = await kysely
    .transaction()
    .execute(async (trx) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)
      await terminate(Number(rows[0]?.pid))
      // The server's message arrives while no statement is running on the connection.
      await new Promise((r) => setTimeout(r, 300))
      await sql`select 1`.execute(trx)
    })
    .then(
      () => 'committed',
      () => 'failed',
    )
  assert.equal(outcome, 'failed', 'the transaction on the ended connection fails')
  assert.deepEqual(uncaught, [], 'no uncaught error event')
  const next = await sql<{ one: number }>`select 1 as one`.execute(kysely)
  assert.equal(next.rows[0]?.one, 1, 'the next query runs on a new connection')
})
