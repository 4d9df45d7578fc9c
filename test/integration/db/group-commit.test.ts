import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { openDatabase } from '../../../src/infra/db/database.ts'
import { createTransactionRunner } from '../../../src/infra/db/group-commit.ts'
import type { Executor } from '../../../src/infra/db/schema.ts'
import {
  createTestDatabase,
  describeEachDatabase,
  type TestDatabase,
} from '../../helpers/database.ts'

const at = '2026-01-01T00:00:00.000Z'

function planRow(id: string) {
  return { id, name: id, active_learner_allotment: 1, monthly_conversions: null, created_at: at }
}

async function insertPlan(trx: Executor, id: string): Promise<void> {
  await trx.insertInto('plans').values(planRow(id)).execute()
}

async function planIds(db: Executor, prefix: string): Promise<string[]> {
  const rows = await db
    .selectFrom('plans')
    .select('id')
    .where('id', 'like', `${prefix}%`)
    .orderBy('id')
    .execute()
  return rows.map((r) => r.id)
}

describeEachDatabase('transaction runner', (database) => {
  test('pieces run side by side each commit or roll back on their own', async () => {
    const runner = createTransactionRunner(database().db)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        runner.run(async (trx) => {
          const id = `gc-own-${String(i).padStart(2, '0')}`
          await insertPlan(trx, id)
          if (i % 3 === 0) throw new Error(`piece ${i} refuses`)
          return id
        }),
      ),
    )
    const kept = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []))
    assert.equal(kept.length, 26)
    assert.equal(refused.length, 14)
    assert.ok(refused.every((r) => /piece \d+ refuses/.test(r)))
    assert.deepEqual(await planIds(database().db.kysely, 'gc-own-'), kept.sort())
  })

  test('a piece refused after a write that returned rows leaves none of it behind', async () => {
    const runner = createTransactionRunner(database().db)
    const outcomes = await Promise.allSettled(
      ['kept-1', 'refused', 'kept-2'].map((name) =>
        runner.run(async (trx) => {
          const id = `gc-returning-${name}`
          const row = await trx
            .insertInto('plans')
            .values(planRow(id))
            .returning('id')
            .executeTakeFirstOrThrow()
          if (name === 'refused') throw new Error('refused after writing')
          return row.id
        }),
      ),
    )
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    )
    assert.deepEqual(await planIds(database().db.kysely, 'gc-returning-'), [
      'gc-returning-kept-1',
      'gc-returning-kept-2',
    ])
  })

  test('a caller hears back only once its writes are visible to other connections', async () => {
    const { db, url } = database()
    const runner = createTransactionRunner(db)
    const other = openDatabase(url)
    try {
      const seen = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const id = `gc-visible-${i}`
          await runner.run((trx) => insertPlan(trx, id))
          return (await planIds(other.kysely, id)).includes(id)
        }),
      )
      assert.deepEqual(seen, Array(20).fill(true))
    } finally {
      await other.close()
    }
  })
})

describe('group commit on SQLite', () => {
  let database: TestDatabase
  before(async () => {
    database = await createTestDatabase('sqlite')
  })
  after(async () => {
    await database.dispose()
  })

  test('pieces handed in together are committed together, by one COMMIT', async () => {
    const runner = createTransactionRunner(database.db)
    const other = openDatabase(database.url)
    try {
      // While the batch runs, no piece's write is visible outside it — not even the first's,
      // which separate transactions would have committed before the second began.
      const seenOutside = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          runner.run(async (trx) => {
            await insertPlan(trx, `gc-together-${i}`)
            return (await planIds(other.kysely, 'gc-together-')).length
          }),
        ),
      )
      assert.deepEqual(seenOutside, Array(10).fill(0))
      assert.equal((await planIds(other.kysely, 'gc-together-')).length, 10)
    } finally {
      await other.close()
    }
  })

  test('a piece refused before it writes is left out without running the others again', async () => {
    const runner = createTransactionRunner(database.db)
    const runs = new Map<number, number>()
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        runner.run(async (trx) => {
          runs.set(i, (runs.get(i) ?? 0) + 1)
          if (i % 4 === 1) {
            // Reads and a write that changes no row: nothing for the refusal to undo.
            await planIds(trx, 'gc-before-')
            await trx.updateTable('plans').set({ name: 'x' }).where('id', '=', 'none').execute()
            throw new Error(`piece ${i} refuses`)
          }
          await insertPlan(trx, `gc-before-${String(i).padStart(2, '0')}`)
        }),
      ),
    )
    assert.deepEqual(
      outcomes.map((o) => o.status),
      Array.from({ length: 12 }, (_, i) => (i % 4 === 1 ? 'rejected' : 'fulfilled')),
    )
    assert.deepEqual([...runs.values()], Array(12).fill(1))
    assert.equal((await planIds(database.db.kysely, 'gc-before-')).length, 9)
  })

  test('a piece refused after writing makes the batch run again, its own writes undone', async () => {
    const runner = createTransactionRunner(database.db)
    const runs = new Map<number, number>()
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        runner.run(async (trx) => {
          runs.set(i, (runs.get(i) ?? 0) + 1)
          await insertPlan(trx, `gc-wrote-${i}`)
          if (i === 3) throw new Error('piece 3 refuses')
        }),
      ),
    )
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    )
    // Handed in together, they are one batch: it ran up to piece 3, was rolled back and ran
    // again whole.
    assert.deepEqual(
      [...runs.entries()].sort(([a], [b]) => a - b),
      [
        [0, 2],
        [1, 2],
        [2, 2],
        [3, 2],
        [4, 1],
        [5, 1],
      ],
    )
    assert.deepEqual(await planIds(database.db.kysely, 'gc-wrote-'), [
      'gc-wrote-0',
      'gc-wrote-1',
      'gc-wrote-2',
      'gc-wrote-4',
      'gc-wrote-5',
    ])
  })

  test('when the shared COMMIT fails every piece is refused and none of their writes stay', async () => {
    const runner = createTransactionRunner(database.db)
    const outcomes = await Promise.allSettled([
      runner.run((trx) => insertPlan(trx, 'gc-doomed-1')),
      runner.run(async (trx) => {
        // A deferred foreign key is checked only at COMMIT: this piece itself succeeds.
        await sql`pragma defer_foreign_keys = on`.execute(trx)
        await trx
          .insertInto('tenants')
          .values({
            id: 'ten_gc',
            name: 'x',
            plan_id: 'no-such-plan',
            settings: '{}',
            created_at: at,
          })
          .execute()
      }),
      runner.run((trx) => insertPlan(trx, 'gc-doomed-2')),
    ])
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'rejected', 'rejected'],
    )
    assert.deepEqual(await planIds(database.db.kysely, 'gc-doomed-'), [])
    // The runner carries on with the next batch.
    await runner.run((trx) => insertPlan(trx, 'gc-after'))
    assert.deepEqual(await planIds(database.db.kysely, 'gc-after'), ['gc-after'])
  })
})
