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
    t = await createWebhookTestApp(database(), { webhooks: { timeoutMs: 5000 } })
    tenant = await t.createTenant()
  })
  after(async () => {
    await t.close()
    await r.close()
  })

  test('at most 2 requests in flight per endpoint, across workers; the fast one drains', async () => {
    let inSlow = 0
    let maxInSlow = 0
    r.route('/slow', (req, res, body) => {
      inSlow += 1
      maxInSlow = Math.max(maxInSlow, inSlow)
      setTimeout(() => {
        inSlow -= 1
        answer(200)(req, res, body)
      }, 1500)
    })
    r.route('/fast', answer(200))
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
    const started = Date.now()
    for (const w of workers) w.start()
    try {
      await waitFor('the fast endpoint to get all 12', () => r.hitsOf('/fast').length >= 12, 10_000)
      const fastDone = Date.now() - started
      assert.ok(fastDone < 1500, `fast endpoint drained in ${fastDone} ms, before one slow answer`)
      assert.ok(r.hitsOf('/slow').length <= 2, `${r.hitsOf('/slow').length} slow requests started`)
      await waitFor('the slow endpoint to get all 12', () => r.hitsOf('/slow').length >= 12, 30_000)
    } finally {
      await Promise.all(workers.map((w) => w.stop()))
    }
    assert.equal(maxInSlow, 2, 'never more than 2 in flight to one endpoint')
  })
})
