import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { DispatchView } from '../../../src/modules/dispatches/dispatch.mapper.ts'
import type { LiveServer } from '../../e2e/helpers/live-server.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  type DashboardUser,
  request,
  signedInUser,
  startLiveServer,
  uploadGolf,
} from './customer-http.helper.ts'

type Refusals = { refusals: Array<{ reason: string; learnerId: string | null }> }
type List = { dispatches: DispatchView[] }

describeEachDatabase('dashboard dispatches over HTTP', (db) => {
  let server: LiveServer
  let admin: DashboardUser
  let viewer: DashboardUser
  let outsider: DashboardUser
  let testKey: string
  let packageId: string

  before(async () => {
    server = await startLiveServer(db())
    const a = await server.t.createTenant()
    const b = await server.t.createTenant()
    testKey = a.testKey
    admin = await signedInUser(server, a.tenantId, 'admin@d.test', 'admin')
    viewer = await signedInUser(server, a.tenantId, 'viewer@d.test', 'viewer')
    outsider = await signedInUser(server, b.tenantId, 'owner@d.test', 'owner')
    packageId = await uploadGolf(admin, 'test')
  })
  after(() => server.close())

  const create = (who: DashboardUser, body: Record<string, unknown>, mode = 'test') =>
    who.call<DispatchView>('POST', `/dispatches?mode=${mode}`, { packageId, ...body })

  /** A launch from the wrapper, as the dispatch frame page posts it on the content origin. */
  async function wrapperLaunch(dispatch: DispatchView, learner: string) {
    const token = new URL(dispatch.launchUrl).searchParams.get('token') ?? ''
    const res = await fetch(`${server.contentUrl}/dispatch/${dispatch.id}/launch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, origin: 'https://lms.example.test', learner_id: learner }),
    })
    return res.status
  }

  test('an admin creates, exports, pauses, resumes, extends, archives, restores, deletes', async () => {
    const made = await create(admin, {
      name: 'Acme LMS',
      licenseLimit: 5,
      tags: ['acme'],
      expiresAt: '2998-01-01T00:00:00.000Z',
    })
    assert.equal(made.status, 201, JSON.stringify(made.json))
    const id = made.json.id
    assert.equal(made.json.status, 'active')
    assert.equal(made.json.licenseLimit, 5)

    const listed = await viewer.call<List>('GET', '/dispatches')
    assert.deepEqual(
      listed.json.dispatches.map((d) => d.id),
      [id],
    )

    const zip = await viewer.call('GET', `/dispatches/${id}/package?scorm_version=1.2`)
    assert.equal(zip.status, 200)
    assert.equal(zip.headers.get('content-type'), 'application/zip')
    assert.match(zip.headers.get('content-disposition') ?? '', /attachment; filename=".+\.zip"/)
    assert.equal(zip.bytes.subarray(0, 2).toString('latin1'), 'PK')

    const step = async (action: string, status: string, body?: unknown) => {
      const res = await admin.call<DispatchView>('POST', `/dispatches/${id}/${action}`, body)
      assert.equal(res.status, 200, `${action}: ${JSON.stringify(res.json)}`)
      assert.equal(res.json.status, status, action)
    }
    await step('pause', 'paused')
    const twice = await admin.call('POST', `/dispatches/${id}/pause`)
    assert.equal(twice.status, 409)
    assert.equal(twice.json.error?.code, 'invalid_state')
    await step('resume', 'active')
    await step('extend', 'active', { expiresAt: '2999-01-01T00:00:00.000Z' })
    await step('archive', 'archived')
    await step('restore', 'active')
    const revoked = await admin.call<DispatchView>('POST', `/dispatches/${id}/revoke-wrappers`)
    assert.equal(revoked.json.wrapperGeneration, 1)

    const renamed = await admin.call<DispatchView>('PATCH', `/dispatches/${id}`, { name: 'Acme 2' })
    assert.equal(renamed.json.name, 'Acme 2')
    assert.equal((await admin.call('DELETE', `/dispatches/${id}`)).status, 204)
    assert.equal((await viewer.call('GET', `/dispatches/${id}`)).status, 404)
  })

  test('seats used against the licence limit and refused launches are visible', async () => {
    const made = await create(admin, { name: 'One seat', licenseLimit: 1 })
    const dispatch = made.json
    assert.equal(await wrapperLaunch(dispatch, 'learner-1'), 200)
    assert.equal(await wrapperLaunch(dispatch, 'learner-2'), 403)

    const read = await viewer.call<DispatchView>('GET', `/dispatches/${dispatch.id}`)
    assert.equal(read.json.counts.uniqueLearners, 1)
    assert.equal(read.json.licenseLimit, 1)
    assert.equal(read.json.counts.refusals, 1)
    const refusals = await viewer.call<Refusals>('GET', `/dispatches/${dispatch.id}/refusals`)
    assert.deepEqual(
      refusals.json.refusals.map((r) => [r.reason, r.learnerId]),
      [['license_limit', 'learner-2']],
    )
  })

  test('a viewer reads and downloads but cannot change anything (403, nothing changed)', async () => {
    const id = (await create(admin, { name: 'Read only' })).json.id
    assert.equal((await create(viewer, { name: 'Nope' })).status, 403)
    const attempts: Array<[string, string, unknown?]> = [
      ['POST', `/dispatches/${id}/pause`],
      ['POST', `/dispatches/${id}/archive`],
      ['POST', `/dispatches/${id}/extend`, { expiresAt: null }],
      ['POST', `/dispatches/${id}/revoke-wrappers`],
      ['PATCH', `/dispatches/${id}`, { name: 'Changed' }],
      ['DELETE', `/dispatches/${id}`],
    ]
    for (const [method, path, body] of attempts) {
      const res = await viewer.call(method, path, body)
      assert.equal(res.status, 403, `${method} ${path}: ${JSON.stringify(res.json)}`)
    }
    const still = await viewer.call<DispatchView>('GET', `/dispatches/${id}`)
    assert.equal(still.json.status, 'active')
    assert.equal(still.json.name, 'Read only')
    assert.equal(still.json.wrapperGeneration, 0)
    assert.equal((await viewer.call('GET', `/dispatches/${id}/refusals`)).status, 200)
  })

  test('tenant B never sees or changes tenant A’s dispatches', async () => {
    const id = (await create(admin, { name: 'Private' })).json.id
    const list = await outsider.call<List>('GET', '/dispatches')
    assert.deepEqual(list.json.dispatches, [])
    for (const [method, path] of [
      ['GET', `/dispatches/${id}`],
      ['GET', `/dispatches/${id}/package`],
      ['GET', `/dispatches/${id}/refusals`],
      ['POST', `/dispatches/${id}/pause`],
      ['DELETE', `/dispatches/${id}`],
    ] as const) {
      assert.equal((await outsider.call(method, path)).status, 404, `${method} ${path}`)
    }
    const created = await outsider.call('POST', '/dispatches', { packageId, name: 'Theirs' })
    assert.equal(created.status, 404, 'A’s package is unknown to B')
  })

  test('test and live mode are separate', async () => {
    const livePackage = await uploadGolf(admin, 'live')
    const live = await admin.call<DispatchView>('POST', '/dispatches?mode=live', {
      packageId: livePackage,
      name: 'Live one',
    })
    assert.equal(live.status, 201, JSON.stringify(live.json))
    const inTest = await admin.call<List>('GET', '/dispatches?mode=test')
    assert.ok(!inTest.json.dispatches.some((d) => d.id === live.json.id))
    assert.equal((await admin.call('GET', `/dispatches/${live.json.id}`)).status, 404)
    assert.equal((await admin.call('POST', `/dispatches/${live.json.id}/pause`)).status, 404)
    const inLive = await admin.call<List>('GET', '/dispatches?mode=live')
    assert.deepEqual(
      inLive.json.dispatches.map((d) => d.id),
      [live.json.id],
    )
    const crossed = await create(admin, { name: 'Wrong mode' }, 'live')
    assert.equal(crossed.status, 404, 'the test package does not exist in live mode')
  })

  test('API keys are refused (401) and a missing CSRF token is 403', async () => {
    for (const [method, path] of [
      ['GET', '/api/customer/dispatches'],
      ['POST', '/api/customer/dispatches'],
      ['GET', '/api/customer/dispatches/dsp_x/package'],
    ] as const) {
      const res = await request(server, method, path, {
        headers: { authorization: `Bearer ${testKey}` },
        ...(method === 'POST' && { body: { packageId, name: 'By key' } }),
      })
      assert.equal(res.status, 401, `${method} ${path}`)
    }
    const noCsrf = await request(server, 'POST', '/api/customer/dispatches', {
      headers: { cookie: admin.cookie },
      body: { packageId, name: 'No token' },
    })
    assert.equal(noCsrf.status, 403)
    const none = await admin.call<List>('GET', '/dispatches')
    assert.ok(!none.json.dispatches.some((d) => d.name === 'No token' || d.name === 'By key'))
  })

  test('the OpenAPI document lists the new dashboard operations under their tag and scheme', async () => {
    type Op = { operationId: string; tags: string[]; security: unknown }
    const doc = await request<{ paths: Record<string, Record<string, Op>> }>(
      server,
      'GET',
      '/api/docs/openapi',
    )
    const ops = new Map<string, Op>()
    for (const [path, methods] of Object.entries(doc.json.paths)) {
      if (!path.startsWith('/api/customer/')) continue
      for (const op of Object.values(methods)) ops.set(op.operationId, op)
    }
    for (const id of [
      'dashboardListDispatches',
      'dashboardCreateDispatch',
      'dashboardPauseDispatch',
      'dashboardExtendDispatch',
      'dashboardExportDispatchPackage',
      'dashboardRevokeDispatchWrappers',
      'dashboardListDispatchRefusals',
      'dashboardQuickPublish',
      'dashboardCreateConversion',
      'dashboardGetConversion',
      'dashboardListLrsCredentials',
      'dashboardCreateLrsCredential',
      'dashboardRevokeLrsCredential',
    ]) {
      const op = ops.get(id)
      assert.ok(op, `${id} is documented`)
      assert.deepEqual(op.tags, ['dashboard'], id)
      assert.deepEqual(op.security, [{ dashboardSession: [] }], id)
    }
  })
})
