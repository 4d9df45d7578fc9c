import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Kysely } from 'kysely'
import { carryOverOpenDeliveries } from '../../../src/infra/db/migrations/0008-sco-delivery-seq.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'

// Migration 0008 moved an open launch's position (its last applied commit) from the delivery
// row to its SCO's row. A launch open while the service is upgraded must carry on.
describeEachDatabase('an open launch across the upgrade to migration 0008', (database) => {
  let before0008: TestApp
  let after0008: TestApp
  before(async () => {
    before0008 = await createTestApp(database())
    after0008 = await createTestApp(database())
  })
  after(async () => {
    await before0008.close()
    await after0008.close()
  })

  test('keeps its position: the next commit applies, an old one is a duplicate', async () => {
    const tenant = await before0008.createTenant('growth')
    const packageId = await uploadGolf(
      before0008,
      tenant.testKey,
      'RuntimeBasicCalls_SCORM20043rdEdition.zip',
    )
    const { launch_url } = await launch(before0008, tenant.testKey, packageId, 'ana@example.com')
    const player = await startPlayer(before0008, launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    for (let seq = 1; seq <= 3; seq++) {
      const res = await sco.post({
        seq,
        fromSeq: seq - 1,
        final: false,
        values: { 'cmi.location': `page-${seq}` },
      })
      assert.equal(res.statusCode, 200, res.body)
    }
    // The database as the code before 0008 left it: the position on the delivery row only.
    const db = before0008.ctx.db.kysely
    await db.updateTable('sco_states').set({ delivery_id: null, delivery_seq: 0 }).execute()
    await db.updateTable('sco_deliveries').set({ last_seq: 3 }).execute()

    await carryOverOpenDeliveries(db as unknown as Kysely<unknown>)
    const row = await db.selectFrom('sco_states').selectAll().executeTakeFirstOrThrow()
    assert.equal(row.delivery_id, sco.delivery.delivery_id)
    assert.equal(Number(row.delivery_seq), 3)

    // A process started on the upgraded database (nothing of the launch in its memory).
    const next = await after0008.content.inject({
      method: 'POST',
      url: `/runtime/sessions/${player.sessionId}/commits`,
      headers: { authorization: `Bearer ${player.started.runtime_token}` },
      payload: {
        delivery_id: sco.delivery.delivery_id,
        delta: { seq: 4, fromSeq: 3, final: false, values: { 'cmi.location': 'page-4' } },
      },
    })
    assert.equal(next.statusCode, 200, next.body)
    assert.equal(next.json().applied, true)
    const old = await sco.post({ seq: 3, fromSeq: 2, final: false, values: {} })
    assert.equal(old.statusCode, 200, old.body)
    assert.deepEqual(
      { applied: old.json().applied, last_seq: old.json().last_seq },
      { applied: false, last_seq: 4 },
    )
  })
})
