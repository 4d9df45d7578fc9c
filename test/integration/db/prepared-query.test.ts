import assert from 'node:assert/strict'
import { test } from 'node:test'
import { preparedQuery } from '../../../src/infra/db/prepared-query.ts'
import { describeEachDatabase } from '../../helpers/database.ts'

const at = '2026-01-01T00:00:00.000Z'

const plansByAllotment = preparedQuery((db, p: { min: number; prefix: string }) =>
  db
    .selectFrom('plans')
    .select(['id', 'active_learner_allotment'])
    .where('id', 'like', p.prefix)
    .where('active_learner_allotment', '>=', p.min)
    // A value written into the query, not taken from the parameters: it stays as it was.
    .where('monthly_conversions', 'is not', null)
    .orderBy('id'),
)

const renamePlan = preparedQuery((db, p: { id: string; name: string }) =>
  db.updateTable('plans').set({ name: p.name }).where('id', '=', p.id),
)

describeEachDatabase('prepared queries', (database) => {
  test('run with fresh parameters each time, in any executor of the database', async () => {
    const { kysely } = database().db
    await kysely
      .insertInto('plans')
      .values(
        [1, 5, 10].map((n) => ({
          id: `pq-${n}`,
          name: `plan ${n}`,
          active_learner_allotment: n,
          monthly_conversions: n === 10 ? null : n,
          created_at: at,
        })),
      )
      .execute()
    assert.deepEqual(
      (await plansByAllotment.all(kysely, { min: 1, prefix: 'pq-%' })).map((r) => r.id),
      ['pq-1', 'pq-5'],
    )
    // SQLite rows have no prototype; compare the fields.
    assert.deepEqual(
      { ...(await plansByAllotment.first(kysely, { min: 2, prefix: 'pq-%' })) },
      {
        id: 'pq-5',
        active_learner_allotment: 5,
      },
    )
    assert.equal(await plansByAllotment.first(kysely, { min: 6, prefix: 'pq-%' }), undefined)
    await kysely.transaction().execute(async (trx) => {
      assert.equal(await renamePlan.run(trx, { id: 'pq-5', name: 'five' }), 1)
      assert.equal(await renamePlan.run(trx, { id: 'pq-none', name: 'x' }), 0)
    })
    const renamed = await kysely
      .selectFrom('plans')
      .select('name')
      .where('id', '=', 'pq-5')
      .executeTakeFirst()
    assert.equal(renamed?.name, 'five')
  })

  test('inside a transaction it reads and writes as the transaction does, and rolls back with it', async () => {
    // On SQLite these run straight on the transaction's connection (directSqliteConnection).
    const { kysely } = database().db
    await kysely
      .insertInto('plans')
      .values({
        id: 'pq-tx',
        name: 'before',
        active_learner_allotment: 3,
        monthly_conversions: 1,
        created_at: at,
      })
      .execute()
    await assert.rejects(
      kysely.transaction().execute(async (trx) => {
        await trx
          .updateTable('plans')
          .set({ active_learner_allotment: 30 })
          .where('id', '=', 'pq-tx')
          .execute()
        assert.equal(await renamePlan.run(trx, { id: 'pq-tx', name: 'during' }), 1)
        const seen = await plansByAllotment.first(trx, { min: 30, prefix: 'pq-tx' })
        assert.equal(seen?.active_learner_allotment, 30)
        throw new Error('roll back')
      }),
      /roll back/,
    )
    const row = await kysely
      .selectFrom('plans')
      .select(['name', 'active_learner_allotment'])
      .where('id', '=', 'pq-tx')
      .executeTakeFirst()
    assert.deepEqual({ ...row }, { name: 'before', active_learner_allotment: 3 })
  })

  test('a parameter used to shape the query is refused when first run', async () => {
    const shaped = preparedQuery((db, p: { archived: boolean }) =>
      p.archived
        ? db.selectFrom('plans').select('id').where('monthly_conversions', 'is', null)
        : db.selectFrom('plans').select('id'),
    )
    await assert.rejects(
      shaped.all(database().db.kysely, { archived: false }),
      /archived must be used as query values/,
    )
  })
})
