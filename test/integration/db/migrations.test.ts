import assert from 'node:assert/strict'
import { test } from 'node:test'
import { migrateToLatest } from '../../../src/infra/db/database.ts'
import { describeEachDatabase } from '../../helpers/database.ts'

describeEachDatabase('migrations', (database) => {
  test('seed the plans and are idempotent on a second run', async () => {
    const { db } = database()
    const plans = await db.kysely.selectFrom('plans').select(['id']).orderBy('id').execute()
    assert.deepEqual(
      plans.map((p) => p.id),
      ['enterprise', 'growth', 'sandbox', 'scale'],
    )
    assert.deepEqual(await migrateToLatest(db), [])
  })

  test('audit events get increasing sequence numbers', async () => {
    const { db } = database()
    for (const id of ['evt_a', 'evt_b']) {
      await db.kysely
        .insertInto('audit_events')
        .values({
          id,
          tenant_id: 'ten_x',
          mode: 'test',
          type: 'package.archived',
          entity_type: 'package',
          entity_id: 'pkg_x',
          severity: 'info',
          data: '{}',
          occurred_at: new Date().toISOString(),
          fanned_out_at: null,
        })
        .execute()
    }
    const rows = await db.kysely
      .selectFrom('audit_events')
      .select(['id', 'seq'])
      .orderBy('seq')
      .execute()
    assert.deepEqual(
      rows.map((r) => r.id),
      ['evt_a', 'evt_b'],
    )
    assert.ok(Number(rows[1]?.seq) > Number(rows[0]?.seq))
  })
})
