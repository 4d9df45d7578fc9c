import assert from 'node:assert/strict'
import { statSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { BACKSTOP_WAL_PAGES } from '../../../src/infra/db/wal-checkpointer.ts'
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts'

describe('SQLite WAL checkpoints', () => {
  let database: TestDatabase
  before(async () => {
    database = await createTestDatabase('sqlite')
  })
  after(async () => {
    await database.dispose()
  })

  test('are made off the event loop: the database file fills while the WAL is far from the backstop', async () => {
    const path = database.url.replace(/^sqlite:/, '')
    const { kysely } = database.db
    await sql`create table filler (id integer primary key, body text not null)`.execute(kysely)
    // ~12 MB of rows: 3 000 pages, far below the main connection's backstop of 20 000 pages,
    // so the main connection never checkpoints by itself here.
    const body = 'x'.repeat(4000)
    for (let chunk = 0; chunk < 15; chunk++) {
      await kysely.transaction().execute(async (trx) => {
        for (let i = 0; i < 200; i++)
          await sql`insert into filler (body) values (${body})`.execute(trx)
      })
    }
    assert.ok(3000 < BACKSTOP_WAL_PAGES)
    const deadline = Date.now() + 10_000
    while (statSync(path).size < 11_000_000 && Date.now() < deadline) await sleep(50)
    assert.ok(
      statSync(path).size >= 11_000_000,
      `the database file holds the rows (${statSync(path).size} bytes)`,
    )
  })
})
