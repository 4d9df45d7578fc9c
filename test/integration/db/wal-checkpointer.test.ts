import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { openDatabase } from '../../../src/infra/db/database.ts'
import { BACKSTOP_WAL_PAGES, startWalCheckpointer } from '../../../src/infra/db/wal-checkpointer.ts'
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
    // The main connection leaves checkpoints to the thread until the WAL reaches the backstop.
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
      kysely,
    )
    assert.equal(Number(rows[0]?.wal_autocheckpoint), BACKSTOP_WAL_PAGES)
    const deadline = Date.now() + 10_000
    while (statSync(path).size < 11_000_000 && Date.now() < deadline) await sleep(50)
    assert.ok(
      statSync(path).size >= 11_000_000,
      `the database file holds the rows (${statSync(path).size} bytes)`,
    )
  })

  test('close() returns only once the checkpointer is gone: the folder can be removed at once', async () => {
    // The cause of a flaky teardown (ENOTEMPTY): the checkpointer's thread still had its
    // connection open after close() returned, and closing it re-created or removed -wal/-shm
    // while the test removed the folder. Now the main connection closes last, removing both.
    for (let round = 0; round < 25; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'cp-wal-close-'))
      const db = openDatabase(`sqlite:${join(dir, 'x.db')}`)
      await sql`create table t (id integer primary key, v text)`.execute(db.kysely)
      for (let i = 0; i < 20; i++)
        await sql`insert into t (v) values (${'y'.repeat(500)})`.execute(db.kysely)
      await db.close()
      assert.deepEqual(readdirSync(dir), ['x.db'], `round ${round}: only the database file is left`)
      rmSync(dir, { recursive: true })
    }
  })

  test('stop() resolves once the thread has closed its connection (stressed)', async () => {
    for (let round = 0; round < 5; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'cp-wal-stop-'))
      const path = join(dir, 'x.db')
      const main = new DatabaseSync(path)
      main.exec('PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; PRAGMA busy_timeout = 0')
      main.exec('create table t (v text)')
      const before = statSync(path).size
      const insert = main.prepare('insert into t (v) values (?)')
      for (let i = 0; i < 200; i++) insert.run('z'.repeat(1000))
      const checkpointer = startWalCheckpointer(path, 5)
      // The thread is connected once its first checkpoint has copied the WAL into the file.
      await waitUntil(() => statSync(path).size > before)
      await checkpointer.stop()
      // Leaving WAL mode needs every other connection closed: it fails (database is locked)
      // if the thread's connection were still open.
      main.exec('PRAGMA journal_mode = DELETE')
      main.close()
      assert.deepEqual(readdirSync(dir), ['x.db'], `round ${round}`)
      rmSync(dir, { recursive: true })
    }
  })
})

async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5)
}
