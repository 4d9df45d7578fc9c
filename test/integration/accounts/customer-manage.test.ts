import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { createWebhookTestApp, type WebhookTestApp } from '../webhooks/webhook-test-app.ts'
import { createUser, type Signed } from './accounts-helpers.ts'

describeEachDatabase('dashboard management: webhooks, team, API keys, roles', (database) => {
  let t: WebhookTestApp
  let tenantA: { tenantId: string; testKey: string }
  let owner: Signed
  let admin: Signed
  let viewer: Signed
  let outsider: Signed

  const call = (
    who: Signed,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
    csrf = true,
  ) =>
    t.app.inject({
      method,
      url: `/api/customer${url}`,
      headers: {
        cookie: who.cookie,
        ...(csrf && method !== 'GET' && { 'x-csrf-token': who.csrf }),
      },
      ...(payload && { payload }),
    })

  before(async () => {
    t = await createWebhookTestApp(database())
    tenantA = await t.createTenant()
    const tenantB = await t.createTenant()
    owner = await createUser(t, tenantA.tenantId, 'owner@a.test', 'owner')
    admin = await createUser(t, tenantA.tenantId, 'admin@a.test', 'admin')
    viewer = await createUser(t, tenantA.tenantId, 'viewer@a.test', 'viewer')
    outsider = await createUser(t, tenantB.tenantId, 'owner@b.test', 'owner')
  })
  after(() => t.close())

  test('an admin manages a webhook: create (secret once), test, history, rotate, re-queue, delete', async () => {
    const created = await call(admin, 'POST', '/webhooks?mode=live', {
      url: 'https://127.0.0.1:9/hook',
      label: 'CRM',
      eventScope: 'sessions',
    })
    assert.equal(created.statusCode, 201, created.body)
    const { webhook, secret } = created.json()
    assert.match(secret, /^whsec_/)
    assert.equal(webhook.mode, 'live')
    assert.equal(webhook.label, 'CRM')
    assert.equal(JSON.stringify(webhook).includes(secret), false)

    // The test/live switch: a live endpoint is not among the test ones.
    assert.equal((await call(viewer, 'GET', '/webhooks')).json().webhooks.length, 0)
    const live = await call(viewer, 'GET', '/webhooks?mode=live')
    assert.deepEqual(
      live.json().webhooks.map((w: { id: string }) => w.id),
      [webhook.id],
    )

    const sent = await call(admin, 'POST', `/webhooks/${webhook.id}/test?mode=live`)
    assert.equal(sent.statusCode, 202, sent.body)
    const delivery = sent.json().delivery
    assert.equal(delivery.event, 'webhook.test')

    const history = await call(viewer, 'GET', `/webhooks/${webhook.id}/deliveries?mode=live`)
    assert.equal(history.statusCode, 200, history.body)
    assert.deepEqual(
      history.json().deliveries.map((d: { delivery_id: string }) => d.delivery_id),
      [delivery.delivery_id],
    )

    // Only a dead letter can be re-queued; then it is queued again for a fresh cycle.
    const early = await call(
      admin,
      'POST',
      `/webhook-deliveries/${delivery.delivery_id}/requeue?mode=live`,
    )
    assert.equal(early.statusCode, 409, early.body)
    await t.ctx.db.kysely
      .updateTable('webhook_deliveries')
      .set({ status: 'dead_letter', attempts: 5 })
      .where('id', '=', delivery.delivery_id)
      .execute()
    const requeued = await call(
      admin,
      'POST',
      `/webhook-deliveries/${delivery.delivery_id}/requeue?mode=live`,
    )
    assert.equal(requeued.statusCode, 200, requeued.body)
    assert.equal(requeued.json().delivery.status, 'queued')

    const rotated = await call(admin, 'POST', `/webhooks/${webhook.id}/rotate-secret?mode=live`)
    assert.equal(rotated.statusCode, 200, rotated.body)
    assert.notEqual(rotated.json().secret, secret)
    assert.ok(rotated.json().webhook.secretRotatedAt)

    const disabled = await call(admin, 'PATCH', `/webhooks/${webhook.id}?mode=live`, {
      status: 'disabled',
    })
    assert.equal(disabled.json().webhook.status, 'disabled')

    // Another tenant's user, and the other mode, see no such endpoint.
    assert.equal((await call(outsider, 'GET', `/webhooks/${webhook.id}?mode=live`)).statusCode, 404)
    assert.equal((await call(admin, 'DELETE', `/webhooks/${webhook.id}`)).statusCode, 404)
    assert.equal((await call(admin, 'DELETE', `/webhooks/${webhook.id}?mode=live`)).statusCode, 204)
    assert.equal((await call(admin, 'GET', `/webhooks/${webhook.id}?mode=live`)).statusCode, 404)
  })

  test('a viewer reads but is refused every change; a change without the CSRF header is 403', async () => {
    const created = await call(owner, 'POST', '/webhooks', {
      url: 'https://127.0.0.1:9/v',
      eventScope: 'all',
    })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().webhook.id
    const refused = [
      await call(viewer, 'POST', '/webhooks', { url: 'https://127.0.0.1:9/x' }),
      await call(viewer, 'PATCH', `/webhooks/${id}`, { label: 'mine' }),
      await call(viewer, 'DELETE', `/webhooks/${id}`),
      await call(viewer, 'POST', `/webhooks/${id}/rotate-secret`),
      await call(viewer, 'POST', `/webhooks/${id}/test`),
      await call(viewer, 'POST', '/webhook-deliveries/dlv_x/requeue'),
      await call(viewer, 'PATCH', `/users/${owner.userId}`, { role: 'viewer' }),
      await call(viewer, 'DELETE', `/users/${admin.userId}`),
      await call(viewer, 'GET', '/api-keys'),
      await call(viewer, 'POST', '/api-keys', { mode: 'test' }),
      await call(admin, 'POST', '/api-keys', { mode: 'test' }),
      await call(admin, 'PATCH', `/users/${viewer.userId}`, { role: 'owner' }),
      await call(admin, 'PATCH', `/users/${owner.userId}`, { role: 'viewer' }),
      await call(admin, 'DELETE', `/users/${owner.userId}`),
      await call(admin, 'POST', '/invites', { email: 'new-owner@a.test', role: 'owner' }),
      await call(viewer, 'POST', '/invites', { email: 'new-viewer@a.test', role: 'viewer' }),
    ]
    assert.deepEqual(
      refused.map((r) => r.statusCode),
      refused.map(() => 403),
      refused.map((r) => r.body).join('\n'),
    )
    assert.equal((await call(viewer, 'GET', `/webhooks/${id}`)).statusCode, 200)
    const noCsrf = await call(owner, 'DELETE', `/webhooks/${id}`, undefined, false)
    assert.equal(noCsrf.statusCode, 403)
    assert.equal(noCsrf.json().error.code, 'csrf_failed')
  })

  test('the owner changes roles and removes users, never the last owner', async () => {
    const listed = await call(viewer, 'GET', '/users')
    assert.deepEqual(
      listed.json().users.map((u: { email: string; role: string }) => `${u.email}:${u.role}`),
      ['admin@a.test:admin', 'owner@a.test:owner', 'viewer@a.test:viewer'],
    )
    const demoteSelf = await call(owner, 'PATCH', `/users/${owner.userId}`, { role: 'admin' })
    assert.equal(demoteSelf.statusCode, 409, demoteSelf.body)
    const removeSelf = await call(owner, 'DELETE', `/users/${owner.userId}`)
    assert.equal(removeSelf.statusCode, 409, removeSelf.body)

    // The role applies from the next request: the promoted admin may now manage the team.
    assert.equal(
      (await call(owner, 'PATCH', `/users/${admin.userId}`, { role: 'owner' })).statusCode,
      204,
    )
    assert.equal((await call(admin, 'GET', '/api-keys')).statusCode, 200)
    assert.equal(
      (await call(admin, 'PATCH', `/users/${owner.userId}`, { role: 'admin' })).statusCode,
      204,
    )
    assert.equal(
      (await call(admin, 'PATCH', `/users/${owner.userId}`, { role: 'owner' })).statusCode,
      204,
    )

    const other = await createUser(t, tenantA.tenantId, 'leaver@a.test', 'viewer')
    assert.equal((await call(owner, 'DELETE', `/users/${other.userId}`)).statusCode, 204)
    assert.equal((await call(other, 'GET', '/me')).statusCode, 401)
    assert.equal((await call(outsider, 'DELETE', `/users/${viewer.userId}`)).statusCode, 404)
    assert.equal(
      (await call(outsider, 'PATCH', `/users/${viewer.userId}`, { role: 'owner' })).statusCode,
      404,
    )
  })

  test('the owner creates a key (shown once) that works on /api/v1, lists and revokes it', async () => {
    const created = await call(owner, 'POST', '/api-keys', { mode: 'live' })
    assert.equal(created.statusCode, 201, created.body)
    const { id, key } = created.json()
    assert.equal(
      (await t.app.inject({ url: '/api/v1/packages', headers: bearer(key) })).statusCode,
      200,
    )
    const listed = (await call(owner, 'GET', '/api-keys')).json().keys
    const row = listed.find((k: { id: string }) => k.id === id)
    assert.equal(row.mode, 'live')
    assert.equal(row.revoked_at, null)
    assert.equal(JSON.stringify(listed).includes(key), false)

    assert.equal((await call(outsider, 'DELETE', `/api-keys/${id}`)).statusCode, 404)
    assert.equal((await call(owner, 'DELETE', `/api-keys/${id}`)).statusCode, 204)
    assert.equal(
      (await t.app.inject({ url: '/api/v1/packages', headers: bearer(key) })).statusCode,
      401,
    )
    assert.equal((await call(owner, 'DELETE', `/api-keys/${id}`)).statusCode, 404)
  })

  test('/ on the API origin leads to the dashboard', async () => {
    const res = await t.app.inject({ url: '/' })
    assert.equal(res.statusCode, 302)
    assert.equal(res.headers.location, '/dashboard/')
  })
})
