import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import {
  createWebhookTestApp,
  type RoutedReceiver,
  SECRET,
  startRoutedReceiver,
  type WebhookTestApp,
} from './webhook-test-app.ts'

describeEachDatabase('events from the real producers reach webhooks', (database) => {
  let t: WebhookTestApp
  let r: RoutedReceiver
  let key = ''

  before(async () => {
    r = await startRoutedReceiver()
    t = await createWebhookTestApp(database())
    key = (await t.createTenant()).testKey
  })
  after(async () => {
    await t.close()
    await r.close()
  })

  const call = async (method: 'POST' | 'GET', url: string, payload?: object) => {
    const res = await t.app.inject({ method, url, headers: bearer(key), payload })
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }
  const upload = async (url: string) => {
    const { payload, headers } = multipartFile(fixture('scorm', 'golf', 'singlescobasic.zip'))
    const res = await t.app.inject({
      method: 'POST',
      url,
      payload,
      headers: { ...headers, ...bearer(key) },
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }

  test('package lifecycle and launches: only the spec’s events are delivered', async () => {
    await call('POST', '/api/v1/webhooks', {
      url: r.url('/producers'),
      secret: SECRET,
      eventScope: 'all',
    })
    const created = await upload('/api/v1/packages/upload')
    const packageId: string = created.package.id
    await call('POST', `/api/v1/packages/${packageId}/archive`)
    await call('POST', `/api/v1/packages/${packageId}/restore`)
    const v2 = await upload(`/api/v1/packages/${packageId}/versions`)
    const versionId = v2.versions.find((v: { active: boolean }) => !v.active).id
    await call('POST', `/api/v1/packages/${packageId}/versions/${versionId}/activate`)
    // The sandbox plan allots 10 active learners: the 7th crosses 70 %.
    for (let i = 1; i <= 7; i++) {
      await call('POST', `/api/v1/packages/${packageId}/launch`, {
        user_id: `learner${i}@example.com`,
      })
    }

    await t.ctx.services.webhooks.deliveries.fanOut()
    await t.worker().runOnce()

    const bodies = r.hitsOf('/producers').map((h) => JSON.parse(h.body))
    const counts: Record<string, number> = {}
    for (const b of bodies) counts[b.event] = (counts[b.event] ?? 0) + 1
    assert.deepEqual(counts, {
      'package.archived': 1,
      'package.version_activated': 1,
      'package.launched': 7,
      'usage.threshold_reached.70': 1,
    })
    const activated = bodies.find((b) => b.event === 'package.version_activated')
    assert.equal(activated.data.entity_type, 'package')
    assert.equal(activated.data.entity_id, packageId)
    assert.equal(activated.data.version_id, versionId)
    const usage = bodies.find((b) => b.event === 'usage.threshold_reached.70')
    assert.equal(usage.data.entity_type, null)
    assert.equal(usage.data.event_plane, 'test')
  })
})
