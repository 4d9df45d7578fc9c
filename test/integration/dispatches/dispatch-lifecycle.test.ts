import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { uploadGolf } from '../sessions/runtime-helpers.ts'
import { api, createDispatch, type DispatchRecord, dispatchEvents } from './dispatch-helpers.ts'

describeEachDatabase('dispatch API and lifecycle', (database) => {
  const clock = new ManualClock('2026-03-01T09:00:00.000Z')
  let t: TestApp
  let tenant: TestTenant
  let pkg: string
  let call: ReturnType<typeof api>
  before(async () => {
    t = await createTestApp(database(), { clock })
    tenant = await t.createTenant()
    pkg = await uploadGolf(t, tenant.testKey, 'RuntimeBasicCalls_SCORM20043rdEdition.zip')
    call = api(t, tenant.testKey)
  })
  after(() => t.close())

  const types = async (id: string) =>
    (await dispatchEvents(t, tenant.tenantId, id)).map((e) => e.type)

  test('create answers 201 with the record, its launch URL and counts, and writes dispatch.created', async () => {
    const d = await createDispatch(t, tenant.testKey, {
      packageId: pkg,
      name: 'Acme Corp',
      licenseLimit: 25,
      expiresAt: '2026-12-31T23:59:59Z',
      allowedDomains: [
        'LMS.Acme.example',
        '*.acme-learning.example',
        'https://moodle.acme.example/',
      ],
      tags: ['acme', 'q1', 'acme'],
    })
    assert.match(d.id, /^dsp_/)
    assert.equal(d.packageId, pkg)
    assert.equal(d.status, 'active')
    assert.equal(d.licenseLimit, 25)
    assert.equal(d.expiresAt, '2026-12-31T23:59:59.000Z')
    assert.deepEqual(d.allowedDomains, [
      'lms.acme.example',
      '*.acme-learning.example',
      'https://moodle.acme.example',
    ])
    assert.deepEqual(d.tags, ['acme', 'q1'])
    assert.match(
      d.launchUrl,
      new RegExp(`^http://127\\.0\\.0\\.1:18081/dispatch/${d.id}/frame\\?token=`),
    )
    assert.deepEqual(d.counts, {
      uniqueLearners: 0,
      launches: 0,
      completions: 0,
      refusals: 0,
      separatedLearners: 0,
      rateLimited: 0,
    })
    assert.equal(d.createdAt, '2026-03-01T09:00:00.000Z')
    const events = await dispatchEvents(t, tenant.tenantId, d.id)
    assert.deepEqual(
      events.map((e) => e.type),
      ['dispatch.created'],
    )
    assert.equal(events[0]?.data.dispatch_id, d.id)
    assert.equal(events[0]?.data.package_id, pkg)

    const read = await call('GET', `/dispatches/${d.id}`)
    assert.equal(read.statusCode, 200)
    assert.deepEqual(read.json(), d)
  })

  test('Idempotency-Key: a retried create answers the same dispatch and creates one', async () => {
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/dispatches',
        headers: { ...bearer(tenant.testKey), 'idempotency-key': 'create-acme-once' },
        payload: { packageId: pkg, name: 'Once' },
      })
    const first = await send()
    const again = await send()
    assert.equal(first.statusCode, 201)
    assert.equal(again.statusCode, 201)
    assert.equal(again.json().id, first.json().id)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    const listed = await call('GET', `/dispatches?package_id=${pkg}&limit=200`)
    assert.equal(
      listed.json().dispatches.filter((d: DispatchRecord) => d.name === 'Once').length,
      1,
    )
  })

  test('defaults: no limit, no expiry, any domain, no tags', async () => {
    const d = await createDispatch(t, tenant.testKey, { packageId: pkg, name: 'Open' })
    assert.equal(d.licenseLimit, null)
    assert.equal(d.expiresAt, null)
    assert.deepEqual(d.allowedDomains, [])
    assert.deepEqual(d.tags, [])
  })

  test('bad input answers 400/404/422 and creates nothing', async () => {
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ packageId: pkg, name: 'x', expiresAt: '2026-02-01T00:00:00Z' }, 400, /future/],
      [{ packageId: pkg, name: 'x', allowedDomains: ['*.com'] }, 400, /top-level/],
      [{ packageId: pkg, name: 'x', allowedDomains: ['ftp://lms.example'] }, 400, /scheme/],
      [{ packageId: pkg, name: 'x', allowedDomains: ['lms.example/path'] }, 400, /host name/],
      [{ packageId: pkg, name: 'x', licenseLimit: 0 }, 400, /licenseLimit|minimum/],
      // A foreign tenant is refused like on every endpoint (http/plugins/tenant-guard.ts).
      [{ packageId: pkg, name: 'x', tenant_id: 'ten_other' }, 403, /tenant_id/],
      [{ packageId: 'pkg_nope', name: 'x' }, 404, /pkg_nope/],
    ]
    for (const [body, status, message] of cases) {
      const res = await call('POST', '/dispatches', body)
      assert.equal(res.statusCode, status, `${JSON.stringify(body)} → ${res.body}`)
      assert.match(res.body, message)
    }
  })

  test('every lifecycle transition writes its audit event; invalid ones answer 409', async () => {
    const d = await createDispatch(t, tenant.testKey, {
      packageId: pkg,
      name: 'Lifecycle',
      expiresAt: '2026-03-10T00:00:00Z',
    })
    const step = async (path: string, expected: string, body?: unknown) => {
      const res = await call('POST', `/dispatches/${d.id}/${path}`, body)
      assert.equal(res.statusCode, 200, `${path}: ${res.body}`)
      assert.equal(res.json().status, expected, path)
      return res.json() as DispatchRecord
    }
    const refused = async (path: string, body?: unknown) => {
      const res = await call('POST', `/dispatches/${d.id}/${path}`, body)
      assert.equal(res.statusCode, 409, `${path} should be refused: ${res.body}`)
      assert.equal(res.json().error.code, 'invalid_state')
      return res.json().error
    }

    await refused('resume') // active → resume
    await refused('restore') // active → restore
    await step('pause', 'paused')
    await refused('pause')
    await step('resume', 'active')
    const patched = await call('PATCH', `/dispatches/${d.id}`, {
      name: 'Lifecycle (renamed)',
      licenseLimit: 3,
      tags: ['renamed'],
    })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().name, 'Lifecycle (renamed)')
    assert.equal(patched.json().licenseLimit, 3)
    await step('archive', 'archived')
    await refused('archive')
    await refused('pause')
    await refused('extend', { expiresAt: '2026-04-01T00:00:00Z' })
    await step('restore', 'active')

    // Time passes the expiry: the status is expired at once, pause/resume are refused.
    clock.set('2026-03-10T00:00:00.000Z')
    assert.equal((await call('GET', `/dispatches/${d.id}`)).json().status, 'expired')
    const error = await refused('pause')
    assert.deepEqual(error.details.allowed_from, ['active'])
    await refused('resume')
    const extendedBack = await step('extend', 'active', { expiresAt: '2026-04-01T00:00:00Z' })
    assert.equal(extendedBack.expiresAt, '2026-04-01T00:00:00.000Z')
    const shorter = await call('POST', `/dispatches/${d.id}/extend`, {
      expiresAt: '2026-03-20T00:00:00Z',
    })
    assert.equal(shorter.statusCode, 400, 'extend never shortens')
    await step('pause', 'paused')
    await step('extend', 'paused', { expiresAt: null }) // a paused dispatch stays paused
    const deleted = await call('DELETE', `/dispatches/${d.id}`)
    assert.equal(deleted.statusCode, 204)
    assert.equal((await call('GET', `/dispatches/${d.id}`)).statusCode, 404)
    assert.equal((await call('POST', `/dispatches/${d.id}/resume`)).statusCode, 404)
    assert.equal((await call('DELETE', `/dispatches/${d.id}`)).statusCode, 404)
    clock.set('2026-03-01T09:00:00.000Z')

    assert.deepEqual(await types(d.id), [
      'dispatch.created',
      'dispatch.paused',
      'dispatch.resumed',
      'dispatch.updated',
      'dispatch.archived',
      'dispatch.restored',
      'dispatch.extended',
      'dispatch.paused',
      'dispatch.extended',
      'dispatch.deleted',
    ])
    const events = await dispatchEvents(t, tenant.tenantId, d.id)
    const extended = events.find((e) => e.type === 'dispatch.extended')
    assert.equal(extended?.data.previous_expires_at, '2026-03-10T00:00:00.000Z')
    assert.equal(extended?.data.expires_at, '2026-04-01T00:00:00.000Z')
  })

  test('two concurrent pauses: exactly one applies, the other answers 409', async () => {
    const d = await createDispatch(t, tenant.testKey, { packageId: pkg, name: 'Race' })
    const results = await Promise.all([
      call('POST', `/dispatches/${d.id}/pause`),
      call('POST', `/dispatches/${d.id}/pause`),
      call('POST', `/dispatches/${d.id}/pause`),
    ])
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 409, 409])
    assert.deepEqual(await types(d.id), ['dispatch.created', 'dispatch.paused'])
  })

  test('list: filters by package, tag and status, pages with a cursor', async () => {
    const other = await uploadGolf(t, tenant.testKey, 'singlescobasic.zip')
    const made: DispatchRecord[] = []
    for (let i = 0; i < 5; i++) {
      clock.advance(1000)
      made.push(
        await createDispatch(t, tenant.testKey, {
          packageId: other,
          name: `Client ${i}`,
          tags: i % 2 === 0 ? ['even', 'list'] : ['list'],
          ...(i === 4 && { expiresAt: new Date(clock.now().getTime() + 60_000).toISOString() }),
        }),
      )
    }
    await call('POST', `/dispatches/${made[1]?.id}/pause`)
    await call('POST', `/dispatches/${made[2]?.id}/archive`)
    clock.advance(120_000) // made[4] expires

    const ids = async (query: string) => {
      const res = await call('GET', `/dispatches?${query}`)
      assert.equal(res.statusCode, 200, res.body)
      return (res.json().dispatches as DispatchRecord[]).map((d) => d.name)
    }
    assert.deepEqual(await ids(`package_id=${other}`), [
      'Client 4',
      'Client 3',
      'Client 2',
      'Client 1',
      'Client 0',
    ])
    assert.deepEqual(await ids(`packageId=${other}&tag=even`), ['Client 4', 'Client 2', 'Client 0'])
    assert.deepEqual(await ids(`package_id=${other}&status=active`), ['Client 3', 'Client 0'])
    assert.deepEqual(await ids(`package_id=${other}&status=paused`), ['Client 1'])
    assert.deepEqual(await ids(`package_id=${other}&status=archived`), ['Client 2'])
    assert.deepEqual(await ids(`package_id=${other}&status=expired`), ['Client 4'])

    const seen: string[] = []
    let cursor: string | null = null
    do {
      const res = await call(
        'GET',
        `/dispatches?package_id=${other}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      )
      const page = res.json()
      seen.push(...page.dispatches.map((d: DispatchRecord) => d.name))
      cursor = page.next_cursor
    } while (cursor)
    assert.deepEqual(seen, ['Client 4', 'Client 3', 'Client 2', 'Client 1', 'Client 0'])
    assert.equal((await call('GET', '/dispatches?cursor=garbage')).statusCode, 400)
  })

  test('a dispatch of another tenant or of the other mode answers 404', async () => {
    const d = await createDispatch(t, tenant.testKey, { packageId: pkg, name: 'Mine' })
    const stranger = await t.createTenant()
    for (const key of [stranger.testKey, tenant.liveKey]) {
      for (const [method, url] of [
        ['GET', `/dispatches/${d.id}`],
        ['POST', `/dispatches/${d.id}/pause`],
        ['DELETE', `/dispatches/${d.id}`],
        ['GET', `/dispatches/${d.id}/package`],
      ] as const) {
        const res = await t.app.inject({ method, url: `/api/v1${url}`, headers: bearer(key) })
        assert.equal(res.statusCode, 404, `${method} ${url}`)
      }
    }
    const live = await t.app.inject({
      method: 'POST',
      url: '/api/v1/dispatches',
      headers: bearer(tenant.liveKey),
      payload: { packageId: pkg, name: 'Cross-mode' },
    })
    assert.equal(live.statusCode, 404, 'a live key cannot dispatch a test package')
  })
})
