import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'

// Two server processes on one database, as behind a load balancer: each keeps what it knows of
// open launches in memory, and neither may apply a commit on top of stale knowledge.
describeEachDatabase('runtime commits across server processes', (database) => {
  let one: TestApp
  let two: TestApp
  let tenant: TestTenant
  let packageId: string
  before(async () => {
    one = await createTestApp(database())
    two = await createTestApp(database())
    tenant = await one.createTenant('growth')
    packageId = await uploadGolf(one, tenant.testKey, 'RuntimeBasicCalls_SCORM20043rdEdition.zip')
  })
  after(async () => {
    await one.close()
    await two.close()
  })

  test('a launch whose commits alternate between processes keeps every commit, in order', async () => {
    const { launch_url, session_id } = await launch(
      one,
      tenant.testKey,
      packageId,
      'kim@example.com',
    )
    const player = await startPlayer(one, launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    const token = player.started.runtime_token as string
    const commit = (app: TestApp, deliveryId: string, seq: number) =>
      app.content.inject({
        method: 'POST',
        url: `/runtime/sessions/${session_id}/commits`,
        headers: { authorization: `Bearer ${token}` },
        payload: {
          delivery_id: deliveryId,
          delta: {
            seq,
            fromSeq: seq - 1,
            final: false,
            values: { 'cmi.location': `page-${seq}`, 'cmi.suspend_data': `visited ${seq}` },
          },
        },
      })
    const route = [one, two, one, two, two, one]
    for (const [i, app] of route.entries()) {
      const res = await commit(app, sco.delivery.delivery_id, i + 1)
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().applied, true, `commit ${i + 1}`)
    }
    const detail = await one.app.inject({
      url: `/api/v1/sessions/${session_id}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(detail.json().cmi_data['cmi.location'], 'page-6')
    assert.equal(detail.json().cmi_data['cmi.suspend_data'], 'visited 6')

    // A resent old commit is a duplicate, and the answer names the real last sequence number
    // even from the process that did not apply it.
    const resent = await commit(two, sco.delivery.delivery_id, 3)
    assert.equal(resent.json().applied, false)
    assert.equal(resent.json().last_seq, 6)

    // The learner reopens the SCO through process two: that ends the first launch. Process
    // one, which applied its last commit, must not take another commit of the ended launch.
    const reopened = await two.content.inject({
      method: 'POST',
      url: `/runtime/sessions/${session_id}/deliveries`,
      headers: { authorization: `Bearer ${token}` },
      payload: { item_id: player.started.current_item_id },
    })
    assert.equal(reopened.statusCode, 200, reopened.body)
    const late = await commit(one, sco.delivery.delivery_id, 7)
    assert.equal(late.statusCode, 409, late.body)
    assert.equal(late.json().error.code, 'invalid_state')
    const next = await commit(one, reopened.json().delivery_id, 1)
    assert.equal(next.json().applied, true)
  })
})
