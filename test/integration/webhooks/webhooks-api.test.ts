import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, test } from 'node:test'
import { recordAuditEvent } from '../../../src/modules/events/audit-event.repository.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  createWebhookTestApp,
  type RoutedReceiver,
  SECRET,
  startRoutedReceiver,
  type WebhookTestApp,
} from './webhook-test-app.ts'

describeEachDatabase('webhook endpoints API', (database) => {
  const clock = new ManualClock('2026-04-01T08:00:00.000Z')
  let t: WebhookTestApp
  let r: RoutedReceiver
  let tenant: { tenantId: string; testKey: string; liveKey: string }
  let other: { tenantId: string; testKey: string; liveKey: string }

  before(async () => {
    r = await startRoutedReceiver()
    t = await createWebhookTestApp(database(), { clock })
    tenant = await t.createTenant()
    other = await t.createTenant()
  })
  after(async () => {
    await t.close()
    await r.close()
  })

  const post = (payload: object, key = tenant.testKey, headers: object = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: { ...bearer(key), ...headers },
      payload,
    })

  test('POST /webhooks answers the spec’s webhook object and never the secret', async () => {
    const res = await post({
      url: r.url('/api-create'),
      secret: SECRET,
      label: 'Orders',
      eventScope: 'sessions',
      mode: 'test',
    })
    assert.equal(res.statusCode, 201, res.body)
    const { webhook } = res.json()
    assert.match(webhook.id, /^whk_/)
    assert.equal(webhook.tenantId, tenant.tenantId)
    assert.equal(webhook.label, 'Orders')
    assert.equal(webhook.url, r.url('/api-create'))
    assert.equal(webhook.status, 'active')
    assert.equal(webhook.eventScope, 'sessions')
    assert.equal(webhook.mode, 'test')
    assert.equal(webhook.signingSecretConfigured, true)
    assert.equal(webhook.events, null)
    assert.ok(!res.body.includes(SECRET), 'the secret is not echoed')
    const got = await t.app.inject({
      url: `/api/v1/webhooks/${webhook.id}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(got.statusCode, 200)
    assert.deepEqual(got.json().webhook, webhook)
    assert.ok(!got.body.includes(SECRET))
    const row = await t.ctx.db.kysely
      .selectFrom('webhook_endpoints')
      .select('secret_box')
      .where('id', '=', webhook.id)
      .executeTakeFirstOrThrow()
    assert.ok(!row.secret_box.includes(SECRET), 'stored encrypted')
  })

  test('mode defaults to the key’s mode; another mode is refused', async () => {
    const live = await post({ url: r.url('/m'), secret: SECRET, eventScope: 'all' }, tenant.liveKey)
    assert.equal(live.statusCode, 201)
    assert.equal(live.json().webhook.mode, 'live')
    const test = await post({ url: r.url('/m'), secret: SECRET, eventScope: 'all' })
    assert.equal(test.json().webhook.mode, 'test')
    const crossed = await post({
      url: r.url('/m'),
      secret: SECRET,
      eventScope: 'all',
      mode: 'live',
    })
    assert.equal(crossed.statusCode, 403)
    assert.equal(crossed.json().error.code, 'mode_mismatch')
  })

  test('signingSecret is an alias; the secret must be 16 to 512 characters', async () => {
    const alias = await post({ url: r.url('/a'), signingSecret: SECRET, eventScope: 'usage' })
    assert.equal(alias.statusCode, 201)
    for (const secret of ['x'.repeat(15), 'x'.repeat(513)]) {
      const res = await post({ url: r.url('/a'), secret, eventScope: 'usage' })
      assert.equal(res.statusCode, 400, secret.length.toString())
    }
    assert.equal(
      (await post({ url: r.url('/a'), secret: 'é'.repeat(16), eventScope: 'usage' })).statusCode,
      201,
    )
    const missing = await post({ url: r.url('/a'), eventScope: 'usage' })
    assert.equal(missing.statusCode, 400)
    assert.match(missing.json().error.message, /secret/)
    const noScope = await post({ url: r.url('/a'), secret: SECRET })
    assert.equal(noScope.statusCode, 400)
    assert.match(noScope.json().error.message, /eventScope/)
  })

  test('earlier body forms map onto the current model', async () => {
    const mismatch = await post({
      url: r.url('/old'),
      secret: SECRET,
      eventScope: 'all',
      tenant_id: other.tenantId,
    })
    assert.equal(mismatch.statusCode, 403)
    assert.equal(mismatch.json().error.code, 'tenant_mismatch')

    const events = await post({
      url: r.url('/old'),
      secret: SECRET,
      tenant_id: tenant.tenantId,
      events: ['session.completed', 'session.passed'],
      description: 'from the migration guide',
    })
    assert.equal(events.statusCode, 201, events.body)
    assert.equal(events.json().webhook.eventScope, 'sessions')
    assert.deepEqual(events.json().webhook.events, ['session.completed'])
    assert.equal(events.json().webhook.label, 'from the migration guide')

    const one = await post({ url: r.url('/old'), secret: SECRET, event_type: 'usage.threshold' })
    assert.equal(one.json().webhook.eventScope, 'usage')
    assert.equal(one.json().webhook.events, null, 'all usage events: the whole scope')

    const mixed = await post({
      url: r.url('/old'),
      secret: SECRET,
      events: ['package.archived', 'dispatch.created'],
    })
    assert.equal(mixed.json().webhook.eventScope, 'all')
    assert.deepEqual(mixed.json().webhook.events, ['package.archived', 'dispatch.created'])

    const refused = await post({
      url: r.url('/old'),
      secret: SECRET,
      events: ['dispatch.updated', 'session.scored'],
    })
    assert.equal(refused.statusCode, 400)
    assert.match(refused.json().error.message, /dispatch\.updated.*not delivered/)
  })

  test('only https URLs that resolve to public addresses are accepted', async () => {
    // This app may reach 127.0.0.1 (allowlist), so use addresses it may not reach.
    for (const url of [
      'http://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest',
      'ftp://example.com/',
      'not a url',
    ]) {
      const res = await post({ url, secret: SECRET, eventScope: 'all' })
      assert.equal(res.statusCode, 422, url)
      assert.equal(res.json().error.code, 'invalid_webhook_url')
      assert.match(res.json().error.message, /^The webhook URL is refused: /)
    }
    const metadata = await post({
      url: 'https://169.254.169.254/x',
      secret: SECRET,
      eventScope: 'all',
    })
    assert.match(metadata.json().error.message, /cloud metadata/)
  })

  test('list, patch, delete; another tenant’s or mode’s id is 404', async () => {
    const created = (await post({ url: r.url('/crud'), secret: SECRET, eventScope: 'all' })).json()
      .webhook
    const list = await t.app.inject({
      url: '/api/v1/webhooks?limit=2',
      headers: bearer(tenant.testKey),
    })
    assert.equal(list.statusCode, 200)
    assert.equal(list.json().webhooks.length, 2)
    assert.ok(list.json().next_cursor)
    const page2 = await t.app.inject({
      url: `/api/v1/webhooks?limit=200&cursor=${list.json().next_cursor}`,
      headers: bearer(tenant.testKey),
    })
    const ids = [...list.json().webhooks, ...page2.json().webhooks].map((w: { id: string }) => w.id)
    assert.equal(new Set(ids).size, ids.length)
    assert.ok(ids.includes(created.id))

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/webhooks/${created.id}`,
      headers: bearer(tenant.testKey),
      payload: { label: 'Renamed', eventScope: 'packages', status: 'disabled' },
    })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().webhook.label, 'Renamed')
    assert.equal(patched.json().webhook.eventScope, 'packages')
    assert.equal(patched.json().webhook.status, 'disabled')

    for (const key of [other.testKey, tenant.liveKey]) {
      for (const [method, url] of [
        ['GET', `/api/v1/webhooks/${created.id}`],
        ['PATCH', `/api/v1/webhooks/${created.id}`],
        ['DELETE', `/api/v1/webhooks/${created.id}`],
        ['POST', `/api/v1/webhooks/${created.id}/test`],
        ['GET', `/api/v1/webhooks/${created.id}/deliveries`],
      ] as const) {
        const res = await t.app.inject({
          method,
          url,
          headers: bearer(key),
          ...(method === 'PATCH' ? { payload: { label: 'x' } } : {}),
        })
        assert.equal(res.statusCode, 404, `${method} ${url}`)
        assert.equal(res.json().error.code, 'webhook_not_found')
      }
    }
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/webhooks/${created.id}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(deleted.statusCode, 204)
    const gone = await t.app.inject({
      url: `/api/v1/webhooks/${created.id}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(gone.statusCode, 404)
  })

  test('Idempotency-Key on POST /webhooks registers once', async () => {
    const body = { url: r.url('/idem'), secret: SECRET, eventScope: 'all' }
    const first = await post(body, tenant.testKey, { 'idempotency-key': 'hook-1' })
    const second = await post(body, tenant.testKey, { 'idempotency-key': 'hook-1' })
    assert.equal(second.statusCode, 201)
    assert.equal(second.headers['idempotent-replayed'], 'true')
    assert.equal(second.json().webhook.id, first.json().webhook.id)
  })

  test('test event, and secret rotation: the old secret signs the spec headers during the overlap', async () => {
    const webhook = (
      await post({ url: r.url('/rotate'), secret: SECRET, eventScope: 'packages' })
    ).json().webhook
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${webhook.id}/test`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(sent.statusCode, 202, sent.body)
    assert.equal(sent.json().delivery.status, 'queued')
    assert.equal(sent.json().delivery.event, 'webhook.test')
    await t.worker().runOnce()
    const [testHit] = r.hitsOf('/rotate')
    assert.equal(JSON.parse(testHit?.body ?? '{}').event, 'webhook.test')
    const hmac = (key: string, body: string) => createHmac('sha256', key).update(body).digest('hex')
    assert.equal(
      testHit?.headers['x-connect-signature'],
      `sha256=${hmac(SECRET, testHit?.body ?? '')}`,
    )

    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${webhook.id}/rotate-secret`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(rotated.statusCode, 200, rotated.body)
    const newSecret: string = rotated.json().secret
    assert.match(newSecret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    assert.equal(
      rotated.json().webhook.previousSecretExpiresAt,
      new Date(clock.now().getTime() + 86_400_000).toISOString(),
    )
    const readBack = await t.app.inject({
      url: `/api/v1/webhooks/${webhook.id}`,
      headers: bearer(tenant.testKey),
    })
    assert.ok(!readBack.body.includes(newSecret), 'shown once')

    const emitArchived = () =>
      recordAuditEvent(
        t.ctx.db.kysely,
        { tenantId: tenant.tenantId, mode: 'test' },
        {
          type: 'package.archived',
          entityType: 'package',
          entityId: 'pkg_r',
          occurredAt: clock.now().toISOString(),
        },
      )
    await emitArchived()
    await t.ctx.services.webhooks.deliveries.fanOut()
    await t.worker().runOnce()
    const during = r.hitsOf('/rotate')[1]
    assert.ok(during)
    // The spec's headers hold one value: the previous secret's until the overlap ends.
    assert.equal(during.headers['x-connect-signature'], `sha256=${hmac(SECRET, during.body)}`)
    assert.equal(during.headers['x-legacy-signature'], hmac(SECRET, during.body))
    // webhook-signature lists both (the generated whsec_ secret gives two values: its decoded
    // key, and its UTF-8 bytes for receivers following the earlier docs), new first.
    assert.equal(during.headers['webhook-signature']?.toString().split(' ').length, 3)

    clock.advance(86_400_000 + 1)
    await emitArchived()
    await t.ctx.services.webhooks.deliveries.fanOut()
    await t.worker().runOnce()
    const afterOverlap = r.hitsOf('/rotate')[2]
    assert.equal(
      afterOverlap?.headers['x-connect-signature'],
      `sha256=${hmac(newSecret, afterOverlap?.body ?? '')}`,
    )

    const immediate = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${webhook.id}/rotate-secret`,
      headers: bearer(tenant.testKey),
      payload: { secret: 'my-own-chosen-secret-123', overlapSeconds: 0 },
    })
    assert.equal(immediate.statusCode, 200)
    assert.equal(immediate.json().secret, 'my-own-chosen-secret-123')
    assert.equal(immediate.json().webhook.previousSecretExpiresAt, null)

    const history = await t.app.inject({
      url: `/api/v1/webhooks/${webhook.id}/deliveries?status=delivered&limit=2`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(history.statusCode, 200)
    assert.equal(history.json().deliveries.length, 2)
    assert.ok(history.json().next_cursor)
    const one = history.json().deliveries[0]
    const single = await t.app.inject({
      url: `/api/v1/webhook-deliveries/${one.delivery_id}`,
      headers: bearer(tenant.testKey),
    })
    assert.deepEqual(single.json().delivery, one)
    const foreign = await t.app.inject({
      url: `/api/v1/webhook-deliveries/${one.delivery_id}`,
      headers: bearer(other.testKey),
    })
    assert.equal(foreign.statusCode, 404)
    assert.equal(foreign.json().error.code, 'delivery_not_found')
  })

  test('changes to endpoints are audited; the audit-only webhook.* events are never delivered', async () => {
    const rows = await t.ctx.db.kysely
      .selectFrom('audit_events')
      .select('type')
      .where('tenant_id', '=', tenant.tenantId)
      .where('type', 'like', 'webhook.%')
      .execute()
    const types = new Set(rows.map((x) => x.type))
    for (const type of [
      'webhook.created',
      'webhook.updated',
      'webhook.deleted',
      'webhook.secret_rotated',
    ]) {
      assert.ok(types.has(type), type)
    }
    const delivered = await t.ctx.db.kysely
      .selectFrom('webhook_deliveries')
      .select('event_type')
      .where('event_type', 'like', 'webhook.%')
      .where('event_type', '!=', 'webhook.test')
      .execute()
    assert.deepEqual(delivered, [])
  })
})
