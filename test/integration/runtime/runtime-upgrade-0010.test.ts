import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { type Kysely, sql } from 'kysely'
import { copyRecords } from '../../../src/infra/db/migrations/0010-runtime-values.ts'
import { bearer, createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'

// Migration 0010 moved each SCO's runtime record from one JSON column (sco_states.state) to one
// row per element (sco_values). Recorded data must survive, and a launch open at the upgrade
// must carry on from the state it had.
describeEachDatabase('runtime records across the upgrade to migration 0010', (database) => {
  let before0010: TestApp
  let after0010: TestApp
  before(async () => {
    before0010 = await createTestApp(database())
    after0010 = await createTestApp(database())
  })
  after(async () => {
    await before0010.close()
    await after0010.close()
  })

  test('the JSON record becomes element rows; an open launch keeps its values', async () => {
    const tenant = await before0010.createTenant('growth')
    const packageId = await uploadGolf(
      before0010,
      tenant.testKey,
      'RuntimeBasicCalls_SCORM20043rdEdition.zip',
    )
    const { launch_url, session_id } = await launch(
      before0010,
      tenant.testKey,
      packageId,
      'ana@example.com',
    )
    const player = await startPlayer(before0010, launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    // The database as the code before 0010 left it: the open launch's whole state as JSON.
    const db = before0010.ctx.db.kysely as unknown as Kysely<unknown>
    const state = {
      'cmi.learner_id': 'ana@example.com',
      'cmi.location': 'page-7',
      'cmi.interactions.0.id': 'q1',
      'cmi.interactions.0.type': 'choice',
      'cmi.suspend_data': 'abc',
    }
    await sql`delete from sco_values`.execute(db)
    await sql`update sco_states set data_chars = 0`.execute(db)
    await sql`alter table sco_states add column state text`.execute(db)
    await sql`update sco_states set state = ${JSON.stringify(state)}`.execute(db)
    await copyRecords(db)
    await sql`alter table sco_states drop column state`.execute(db)

    const chars = Object.entries(state).reduce((n, [k, v]) => n + k.length + v.length, 0)
    const row = (await sql<{ data_chars: number }>`select data_chars from sco_states`.execute(db))
      .rows[0]
    assert.equal(Number(row?.data_chars), chars)
    const detail = (
      await after0010.app.inject({
        url: `/api/v1/sessions/${session_id}`,
        headers: bearer(tenant.testKey),
      })
    ).json()
    assert.deepEqual(detail.cmi_data, state)
    // A process started on the upgraded database: the launch's values come back from the rows,
    // so a commit that depends on them (a response needs the interaction's type) applies.
    const next = await after0010.content.inject({
      method: 'POST',
      url: `/runtime/sessions/${player.sessionId}/commits`,
      headers: { authorization: `Bearer ${player.started.runtime_token}` },
      payload: {
        delivery_id: sco.delivery.delivery_id,
        delta: {
          seq: 1,
          fromSeq: 0,
          final: false,
          values: { 'cmi.interactions.0.learner_response': 'a' },
        },
      },
    })
    assert.equal(next.statusCode, 200, next.body)
    assert.deepEqual(next.json().errors, [])
  })
})
