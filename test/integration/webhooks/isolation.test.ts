import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { recordAuditEvent } from '../../../src/modules/events/audit-event.repository.ts'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  answer,
  createWebhookTestApp,
  type RoutedReceiver,
  SECRET,
  startRoutedReceiver,
  type WebhookTestApp,
  waitFor,
} from './webhook-test-app.ts'

describeEachDatabase('a slow endpoint does not hold up the others', (database) => {
  let t: WebhookTestApp
  let r: RoutedReceiver
  let tenant: { tenantId: string; testKey: string; liveKey: string }

  before(async () => {
    r = await startRoutedReceiver()
    t = await createWebhookTestApp(database())
    tenant = await t.createTenant()
  })
  after(async () => {
    await t.close()
    await r.close()
  })

  // Isolation is shown by order, not by time: the slow receiver holds its requests unanswered
  // until the fast endpoint has received everything. (How fast it drains: bench/webhooks.bench.ts.)
  test('at most 2 requests in flight per endpoint, across workers; the fast one drains while the slow one holds', async () => {
    const held: Array<() => void> = []
    let holding = true
    let inSlow = 0
    let maxInSlow = 0
    const order: string[] = []
    r.route('/slow', (req, res, body) => {
      inSlow += 1
      maxInSlow = Math.max(maxInSlow, inSlow)
      order.push('slow request')
      const release = () => {
        inSlow -= 1
        order.push('slow answer')
        answer(200)(req, res, body)
      }
      if (holding) held.push(release)
      else release()
    })
    r.route('/fast', (req, res, body) => {
      order.push('fast request')
      answer(200)(req, res, body)
    })
    for (const path of ['/slow', '/fast']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(tenant.testKey),
        payload: { url: r.url(path), secret: SECRET, eventScope: 'packages' },
      })
      assert.equal(res.statusCode, 201)
    }
    const occurredAt = new Date(Date.now() + 1000).toISOString()
    for (let i = 0; i < 12; i++) {
      await recordAuditEvent(
        t.ctx.db.kysely,
        { tenantId: tenant.tenantId, mode: 'test' },
        { type: 'package.archived', entityType: 'package', entityId: `pkg_${i}`, occurredAt },
      )
    }
    await t.ctx.services.webhooks.deliveries.fanOut()
    // Two workers (four sender runs) on one database: the cap is counted in the database.
    const workers = [t.worker(), t.worker()]
    for (const w of workers) w.start()
    try {
      await waitFor('the fast endpoint to get all 12', () => r.hitsOf('/fast').length >= 12)
      await waitFor('the slow endpoint to hold two requests', () => held.length === 2)
      // Everything the fast endpoint got arrived while the slow one answered nothing.
      assert.equal(order.filter((e) => e === 'fast request').length, 12)
      assert.ok(!order.includes('slow answer'), order.join(', '))
      assert.equal(r.hitsOf('/slow').length, 2, 'the slow endpoint holds exactly its 2 slots')
      holding = false
      for (const release of held.splice(0)) release()
      await waitFor('the slow endpoint to get all 12', () => r.hitsOf('/slow').length >= 12)
    } finally {
      await Promise.all(workers.map((w) => w.stop()))
    }
    assert.equal(maxInSlow, 2, 'never more than 2 in flight to one endpoint')
  })
})
