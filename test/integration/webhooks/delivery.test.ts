import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, test } from 'node:test'
import type { Mode } from '../../../src/infra/db/schema.ts'
import { recordAuditEvent } from '../../../src/modules/events/audit-event.repository.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  answer,
  createWebhookTestApp,
  type RoutedReceiver,
  SECRET,
  startRoutedReceiver,
  type WebhookTestApp,
} from './webhook-test-app.ts'

const TIMEOUT_MS = 1000

describeEachDatabase('webhook delivery to a real HTTPS receiver', (database) => {
  const clock = new ManualClock('2026-03-01T10:00:00.000Z')
  let t: WebhookTestApp
  let r: RoutedReceiver
  let tenant: { tenantId: string; testKey: string; liveKey: string }

  before(async () => {
    r = await startRoutedReceiver()
    t = await createWebhookTestApp(database(), { clock, webhooks: { timeoutMs: TIMEOUT_MS } })
    tenant = await t.createTenant()
  })
  after(async () => {
    await t.close()
    await r.close()
  })

  async function register(path: string, key = tenant.testKey, extra: object = {}) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key),
      payload: { url: r.url(path), secret: SECRET, eventScope: 'all', ...extra },
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().webhook as { id: string }
  }

  async function emit(type: string, mode: Mode = 'test', data: Record<string, unknown> = {}) {
    return recordAuditEvent(
      t.ctx.db.kysely,
      { tenantId: tenant.tenantId, mode },
      {
        type,
        entityType: 'package',
        entityId: 'pkg_webhooktest',
        data,
        occurredAt: clock.now().toISOString(),
      },
    )
  }

  /** One fan-out, then every due job (the sender lanes) until none is due. */
  async function cycle() {
    await t.ctx.services.webhooks.deliveries.fanOut()
    await t.worker().runOnce()
  }

  async function deliveriesOf(webhookId: string, key = tenant.testKey) {
    const res = await t.app.inject({
      url: `/api/v1/webhooks/${webhookId}/deliveries`,
      headers: bearer(key),
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json().deliveries as Array<Record<string, unknown> & { attempt_history: object[] }>
  }

  async function remove(webhookId: string) {
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/webhooks/${webhookId}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(res.statusCode, 204)
  }

  test('the envelope is the spec’s and every signature header verifies', async () => {
    const webhook = await register('/sig')
    const sessionData = {
      session_id: 'ses_1',
      package_id: 'pkg_1',
      learner_id: 'learner@example.com',
      completion_status: 'completed',
      success_status: 'passed',
      progress_percent: 100,
      score: { scaled: 0.9, raw: 90, min: 0, max: 100 },
      session_time: 'PT5M',
      time_spent_seconds: 300,
      updated_at: clock.now().toISOString(),
    }
    const eventId = await emit('session.completed', 'test', sessionData)
    await cycle()
    const [hit, ...more] = r.hitsOf('/sig')
    assert.ok(hit, 'delivered')
    assert.equal(more.length, 0)
    assert.equal(hit.method, 'POST')
    assert.equal(hit.headers['content-type'], 'application/json')

    const body = JSON.parse(hit.body)
    assert.deepEqual(Object.keys(body), ['event', 'tenant_id', 'data', 'timestamp', 'delivery_id'])
    assert.equal(body.event, 'session.completed')
    assert.equal(body.tenant_id, tenant.tenantId)
    assert.equal(body.timestamp, clock.now().toISOString())
    assert.match(body.delivery_id, /^dlv_/)
    assert.deepEqual(body.data, {
      audit_event_id: eventId,
      event_plane: 'test',
      entity_type: 'package',
      entity_id: 'pkg_webhooktest',
      severity: 'info',
      ...sessionData,
    })

    const h = hit.headers
    assert.equal(h['x-webhook-id'], webhook.id)
    assert.equal(h['x-delivery-id'], body.delivery_id)
    assert.equal(h['x-connect-event-type'], 'session.completed')
    const hex = createHmac('sha256', SECRET).update(hit.body).digest('hex')
    assert.equal(h['x-connect-signature'], `sha256=${hex}`)
    assert.equal(h['x-legacy-signature'], hex)
    assert.equal(h['x-legacy-signature-algorithm'], 'sha256')
    assert.equal(h['webhook-id'], body.delivery_id)
    assert.equal(h['webhook-timestamp'], String(Math.floor(clock.now().getTime() / 1000)))
    const standard = createHmac('sha256', SECRET)
      .update(`${h['webhook-id']}.${h['webhook-timestamp']}.${hit.body}`)
      .digest('base64')
    assert.equal(h['webhook-signature'], `v1,${standard}`)

    const [delivery] = await deliveriesOf(webhook.id)
    assert.equal(delivery?.status, 'delivered')
    assert.equal(delivery?.delivery_id, body.delivery_id)
    assert.equal(delivery?.attempts, 1)
    const [attempt] = (delivery?.attempt_history ?? []) as Array<Record<string, unknown>>
    assert.equal(attempt?.number, 1)
    assert.equal(attempt?.status_code, 204)
    assert.equal(typeof attempt?.latency_ms, 'number')
    await remove(webhook.id)
  })

  test('4 failures then success: delivered on attempt 5 after exactly 60 s, 5, 15 and 60 min', async () => {
    let calls = 0
    r.route('/flaky', (req, res, body) => {
      calls += 1
      if (calls < 5) return answer(500)(req, res, body)
      answer(200)(req, res, body)
    })
    const webhook = await register('/flaky')
    await emit('package.archived')
    await cycle()
    assert.equal(r.hitsOf('/flaky').length, 1)
    for (const [i, waitMs] of [60_000, 300_000, 900_000, 3_600_000].entries()) {
      const [before] = await deliveriesOf(webhook.id)
      assert.equal(before?.status, 'failed')
      assert.equal(
        before?.next_attempt_at,
        new Date(clock.now().getTime() + waitMs).toISOString(),
        `attempt ${i + 2} is due ${waitMs} ms after attempt ${i + 1}`,
      )
      clock.advance(waitMs - 1)
      await t.worker().runOnce()
      assert.equal(r.hitsOf('/flaky').length, i + 1, `no attempt ${i + 2} 1 ms early`)
      clock.advance(1)
      await t.worker().runOnce()
      assert.equal(r.hitsOf('/flaky').length, i + 2, `attempt ${i + 2} on time`)
    }
    const [delivery] = await deliveriesOf(webhook.id)
    assert.equal(delivery?.status, 'delivered')
    assert.equal(delivery?.attempts, 5)
    assert.deepEqual(
      ((delivery?.attempt_history ?? []) as Array<{ outcome: string; status_code: number }>).map(
        (a) => `${a.outcome}:${a.status_code}`,
      ),
      ['failed:500', 'failed:500', 'failed:500', 'failed:500', 'delivered:200'],
    )
    const ids = new Set(r.hitsOf('/flaky').map((h) => h.headers['x-delivery-id']))
    assert.equal(ids.size, 1, 'one delivery_id across every attempt')
    const bodies = new Set(r.hitsOf('/flaky').map((h) => h.body))
    assert.equal(bodies.size, 1, 'the same body on every attempt')
    await remove(webhook.id)
  })

  test('5 failures → dead_letter; re-queue → delivered with the same delivery_id', async () => {
    let failing = true
    r.route('/dead', (req, res, body) => answer(failing ? 503 : 200)(req, res, body))
    const webhook = await register('/dead')
    await emit('package.archived')
    await cycle()
    for (const waitMs of [60_000, 300_000, 900_000, 3_600_000]) {
      clock.advance(waitMs)
      await t.worker().runOnce()
    }
    assert.equal(r.hitsOf('/dead').length, 5)
    let [delivery] = await deliveriesOf(webhook.id)
    assert.equal(delivery?.status, 'dead_letter')
    assert.equal(delivery?.attempts, 5)
    assert.equal(delivery?.next_attempt_at, null)
    clock.advance(24 * 3_600_000)
    await t.worker().runOnce()
    assert.equal(r.hitsOf('/dead').length, 5, 'no 6th attempt on its own')

    failing = false
    const requeued = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhook-deliveries/${delivery?.delivery_id}/requeue`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(requeued.statusCode, 200, requeued.body)
    assert.equal(requeued.json().delivery.status, 'queued')
    await t.worker().runOnce()
    ;[delivery] = await deliveriesOf(webhook.id)
    assert.equal(delivery?.status, 'delivered')
    assert.equal(delivery?.total_attempts, 6)
    assert.equal(delivery?.requeue_count, 1)
    assert.equal(delivery?.attempt_history.length, 6)
    const ids = new Set(r.hitsOf('/dead').map((h) => h.headers['x-delivery-id']))
    assert.deepEqual([...ids], [delivery?.delivery_id])

    const again = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhook-deliveries/${delivery?.delivery_id}/requeue`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(again.statusCode, 409)
    assert.equal(again.json().error.code, 'invalid_state')
    await remove(webhook.id)
  })

  for (const status of [404, 410]) {
    test(`${status} dead-letters after one attempt`, async () => {
      r.route(`/gone-${status}`, answer(status))
      const webhook = await register(`/gone-${status}`)
      await emit('package.archived')
      await cycle()
      clock.advance(2 * 3_600_000)
      await t.worker().runOnce()
      assert.equal(r.hitsOf(`/gone-${status}`).length, 1)
      const [delivery] = await deliveriesOf(webhook.id)
      assert.equal(delivery?.status, 'dead_letter')
      assert.equal(delivery?.attempts, 1)
      assert.equal(delivery?.last_status_code, status)
      await remove(webhook.id)
    })
  }

  test('302 is a failed attempt and the Location is never fetched', async () => {
    r.route('/redirect', answer(302, { location: r.url('/redirect-target') }))
    r.route('/redirect-target', answer(200))
    const webhook = await register('/redirect')
    await emit('package.archived')
    await cycle()
    assert.equal(r.hitsOf('/redirect').length, 1)
    assert.equal(r.hitsOf('/redirect-target').length, 0, 'the redirect was not followed')
    const [delivery] = await deliveriesOf(webhook.id)
    assert.equal(delivery?.status, 'failed')
    assert.equal(delivery?.last_status_code, 302)
    assert.match(String(delivery?.last_error), /redirect.*not followed/)
    await remove(webhook.id)
  })

  test('no answer within the timeout is a failed attempt', async () => {
    r.route('/silent', () => {
      // never answers
    })
    const webhook = await register('/silent')
    await emit('package.archived')
    const started = Date.now()
    await cycle()
    const elapsed = Date.now() - started
    assert.ok(elapsed >= TIMEOUT_MS - 50 && elapsed < TIMEOUT_MS + 5000, `${elapsed} ms`)
    const [delivery] = await deliveriesOf(webhook.id)
    assert.equal(delivery?.status, 'failed')
    assert.equal(delivery?.last_status_code, null)
    assert.match(String(delivery?.last_error), /timeout/)
    const [attempt] = (delivery?.attempt_history ?? []) as Array<{ latency_ms: number }>
    assert.ok((attempt?.latency_ms ?? 0) >= TIMEOUT_MS - 50)
    await remove(webhook.id)
  })

  test('test endpoints get only test events, live endpoints only live, each within scope', async () => {
    const testAll = await register('/mode-test')
    const liveAll = await register('/mode-live', tenant.liveKey)
    const liveSessions = await register('/mode-live-sessions', tenant.liveKey, {
      eventScope: 'sessions',
    })
    await emit('package.archived', 'test')
    await emit('package.version_activated', 'live')
    await emit('session.failed', 'live')
    // audit-only and unknown types are never delivered
    await emit('package.created', 'live')
    await emit('package.restored', 'test')
    await emit('dispatch.updated', 'live')
    await emit('dispatch.launched', 'live')
    await cycle()
    const events = (path: string) =>
      r
        .hitsOf(path)
        .map((h) => JSON.parse(h.body).event)
        .sort()
    assert.deepEqual(events('/mode-test'), ['package.archived'])
    assert.deepEqual(events('/mode-live'), ['package.version_activated', 'session.failed'])
    assert.deepEqual(events('/mode-live-sessions'), ['session.failed'])
    for (const h of r.hitsOf('/mode-live'))
      assert.equal(JSON.parse(h.body).data.event_plane, 'live')
    const live = await t.app.inject({ url: '/api/v1/webhooks', headers: bearer(tenant.testKey) })
    assert.ok(!live.body.includes(liveAll.id), 'a test key does not see live endpoints')
    await remove(testAll.id)
    for (const id of [liveAll.id, liveSessions.id]) {
      await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/webhooks/${id}`,
        headers: bearer(tenant.liveKey),
      })
    }
  })

  test('usage and package.launched events carry the baseline fields only', async () => {
    const webhook = await register('/baseline')
    await emit('usage.threshold_reached.90', 'test', { active_learners: 9 })
    await emit('package.launched', 'test', { learner_id: 'x' })
    await cycle()
    const bodies = r.hitsOf('/baseline').map((h) => JSON.parse(h.body))
    const usage = bodies.find((b) => b.event === 'usage.threshold_reached.90')
    const launched = bodies.find((b) => b.event === 'package.launched')
    assert.deepEqual(Object.keys(usage.data).sort(), [
      'audit_event_id',
      'entity_id',
      'entity_type',
      'event_plane',
      'severity',
    ])
    assert.equal(usage.data.entity_type, null)
    assert.equal(usage.data.entity_id, null)
    assert.equal(launched.data.entity_type, 'package')
    assert.equal(launched.data.learner_id, undefined)
    await remove(webhook.id)
  })

  test('fan-out re-run over the same events queues nothing new', async () => {
    const webhook = await register('/rerun')
    const ids = [await emit('package.archived'), await emit('package.archived')]
    const first = await t.ctx.services.webhooks.deliveries.fanOut()
    assert.equal(first.deliveries, 2)
    // As if the marking had been lost: every event is pending again.
    await t.ctx.db.kysely
      .updateTable('audit_events')
      .set({ fanned_out_at: null })
      .where('id', 'in', ids)
      .execute()
    const again = await Promise.all(
      [1, 2, 3].map(() => t.ctx.services.webhooks.deliveries.fanOut()),
    )
    assert.equal(
      again.reduce((n, x) => n + x.deliveries, 0),
      0,
    )
    await t.worker().runOnce()
    assert.equal(r.hitsOf('/rerun').length, 2)
    await remove(webhook.id)
  })
})
