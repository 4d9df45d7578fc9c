import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { listAuditEvents } from '../../../src/modules/events/audit-event.repository.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from './runtime-helpers.ts'

describeEachDatabase('listing sessions and usage', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let pkg: string
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('sandbox') // allotment: 10 active learners
    pkg = await uploadGolf(t, tenant.testKey, 'singlesco_scorm12.zip')
  })
  after(() => t.close())

  test('concurrent launches by distinct learners fire each usage threshold exactly once', async () => {
    const learners = Array.from({ length: 12 }, (_, i) => `learner-${i}@example.com`)
    await Promise.all(learners.map((l) => launch(t, tenant.testKey, pkg, l)))
    await Promise.all(learners.slice(0, 4).map((l) => launch(t, tenant.testKey, pkg, l)))
    const events = await listAuditEvents(t.ctx.db.kysely, {
      tenantId: tenant.tenantId,
      mode: 'test',
    })
    const usage = events.filter((e) => e.type.startsWith('usage.'))
    assert.deepEqual(usage.map((e) => e.type).sort(), [
      'usage.threshold_reached.100',
      'usage.threshold_reached.70',
      'usage.threshold_reached.90',
    ])
    for (const e of usage) {
      assert.equal(e.entity_type, null)
      assert.equal(e.entity_id, null)
    }
    const live = await listAuditEvents(t.ctx.db.kysely, { tenantId: tenant.tenantId, mode: 'live' })
    assert.equal(live.length, 0, 'test launches never count toward live usage')
  })

  test('filters, cursor pages and sorting', async () => {
    const { launch_url } = await launch(t, tenant.testKey, pkg, 'finisher@example.com')
    const player = await startPlayer(t, launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    sco.api.LMSInitialize?.('')
    sco.api.LMSSetValue?.('cmi.core.lesson_status', 'completed')
    sco.api.LMSFinish?.('')
    await sco.flush()

    const completed = await t.app.inject({
      url: `/api/v1/sessions?package_id=${pkg}&completion_status=completed`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(completed.statusCode, 200)
    assert.deepEqual(
      completed.json().sessions.map((s: { learner_id: string }) => s.learner_id),
      ['finisher@example.com'],
    )
    const byLearner = await t.app.inject({
      url: '/api/v1/sessions?learner_id=learner-3@example.com',
      headers: bearer(tenant.testKey),
    })
    assert.equal(byLearner.json().sessions.length, 1)

    const seen: string[] = []
    let cursor: string | null = null
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      const page = await t.app.inject({
        url: `/api/v1/sessions?limit=5&order=asc${q}`,
        headers: bearer(tenant.testKey),
      })
      const body = page.json()
      seen.push(...body.sessions.map((s: { id: string }) => s.id))
      cursor = body.next_cursor
    } while (cursor)
    assert.equal(seen.length, 13)
    assert.equal(new Set(seen).size, 13)

    const future = await t.app.inject({
      url: `/api/v1/sessions?from=${encodeURIComponent('2999-01-01T00:00:00Z')}`,
      headers: bearer(tenant.testKey),
    })
    assert.deepEqual(future.json().sessions, [])
  })

  test('a cursor issued before the shared keyset format still continues the list', async () => {
    const list = (q: string) =>
      t.app.inject({ url: `/api/v1/sessions?limit=5${q}`, headers: bearer(tenant.testKey) })
    const first = (await list('')).json()
    const last = first.sessions.at(-1) as { id: string; created_at: string }
    const legacy = Buffer.from(JSON.stringify({ v: last.created_at, id: last.id })).toString(
      'base64url',
    )
    const viaNew = await list(`&cursor=${encodeURIComponent(first.next_cursor)}`)
    const viaLegacy = await list(`&cursor=${encodeURIComponent(legacy)}`)
    assert.equal(viaLegacy.statusCode, 200)
    const ids = (r: typeof viaNew) => r.json().sessions.map((s: { id: string }) => s.id)
    assert.equal(ids(viaNew).length, 5)
    assert.deepEqual(ids(viaLegacy), ids(viaNew))
    assert.equal(viaLegacy.json().next_cursor, viaNew.json().next_cursor)
    assert.equal((await list('&cursor=bm90LWEtY3Vyc29y')).statusCode, 400)
  })

  test('CSV with format=csv or Accept: text/csv', async () => {
    for (const request of [
      { url: '/api/v1/sessions?format=csv', headers: bearer(tenant.testKey) },
      { url: '/api/v1/sessions', headers: { ...bearer(tenant.testKey), accept: 'text/csv' } },
    ]) {
      const res = await t.app.inject(request)
      assert.equal(res.statusCode, 200)
      assert.match(res.headers['content-type'] as string, /^text\/csv/)
      const lines = res.body.trim().split('\r\n')
      assert.match(lines[0] ?? '', /^session_id,package_id,learner_id,/)
      assert.equal(lines.length, 14)
      assert.ok(lines.some((l) => l.includes('finisher@example.com') && l.includes(',completed,')))
    }
  })
})
