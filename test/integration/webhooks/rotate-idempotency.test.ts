import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { createWebhookTestApp, SECRET, type WebhookTestApp } from './webhook-test-app.ts'

describeEachDatabase('secret rotation and Idempotency-Key', (database) => {
  let t: WebhookTestApp
  let key: string
  before(async () => {
    t = await createWebhookTestApp(database())
    key = (await t.createTenant()).testKey
  })
  after(() => t.close())

  test('a rotation answer (it holds the new secret) is never stored or replayed', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key),
      payload: {
        url: 'https://127.0.0.1:9/hook',
        secret: SECRET,
        eventScope: 'packages',
        mode: 'test',
      },
    })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().webhook.id
    const rotate = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${id}/rotate-secret`,
        headers: { ...bearer(key), 'idempotency-key': 'rotate-1' },
      })
    const first = await rotate()
    const second = await rotate()
    assert.equal(first.statusCode, 200, first.body)
    assert.equal(second.statusCode, 200, second.body)
    assert.notEqual(second.headers['idempotent-replayed'], 'true')
    assert.notEqual(first.json().secret, second.json().secret)
    const stored = await t.ctx.db.kysely
      .selectFrom('idempotency_keys')
      .select('response_body')
      .execute()
    for (const secret of [first.json().secret, second.json().secret]) {
      assert.ok(stored.every((row) => !row.response_body?.includes(secret)))
    }
  })
})
