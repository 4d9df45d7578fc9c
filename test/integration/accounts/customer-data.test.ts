import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { createUser, insertPackage, insertSession, type Signed } from './accounts-helpers.ts'

describeEachDatabase('dashboard data: packages, sessions, learner-progress report', (database) => {
  let t: TestApp
  let a: TestTenant
  let b: TestTenant
  let userA: Signed
  let userB: Signed

  before(async () => {
    t = await createTestApp(database())
    a = await t.createTenant()
    b = await t.createTenant()
    userA = await createUser(t, a.tenantId, 'a@example.test')
    userB = await createUser(t, b.tenantId, 'b@example.test')
    await insertPackage(t, a.tenantId, 'test', 'pkg_alpha')
    await insertPackage(t, a.tenantId, 'test', 'pkg_beta')
    await insertPackage(t, a.tenantId, 'live', 'pkg_live')
    const s = (packageId: string, learner: string, day: string, rest: object) =>
      insertSession(t, {
        tenantId: a.tenantId,
        mode: 'test',
        packageId,
        learner,
        createdAt: `2026-03-${day}T10:00:00.000Z`,
        seconds: 0,
        ...rest,
      })
    // alpha: 4 attempts by 3 learners in March; times 60, 120, 300, 600 → median 210.
    await s('pkg_alpha', 'ann', '02', {
      completed: true,
      success: 'passed',
      score: 0.9,
      seconds: 60,
    })
    await s('pkg_alpha', 'ann', '03', {
      completed: true,
      success: 'failed',
      score: 0.5,
      seconds: 120,
    })
    await s('pkg_alpha', 'bob', '04', { completed: false, seconds: 600 })
    await s('pkg_alpha', 'cat', '05', {
      completed: true,
      success: 'passed',
      score: 0.7,
      seconds: 300,
    })
    // beta: 1 attempt, no verdict, no score; one more in April (outside the range below).
    await s('pkg_beta', 'ann', '06', { completed: false, seconds: 45 })
    await insertSession(t, {
      tenantId: a.tenantId,
      mode: 'test',
      packageId: 'pkg_beta',
      learner: 'dan',
      createdAt: '2026-04-02T10:00:00.000Z',
      completed: true,
      seconds: 1000,
    })
    await insertSession(t, {
      tenantId: a.tenantId,
      mode: 'live',
      packageId: 'pkg_live',
      learner: 'eve',
      createdAt: '2026-03-02T10:00:00.000Z',
      completed: true,
      seconds: 10,
    })
  })
  after(() => t.close())

  const get = (user: Signed, url: string) =>
    t.app.inject({ method: 'GET', url, headers: { cookie: user.cookie } })
  const march = 'from=2026-03-01T00:00:00.000Z&to=2026-04-01T00:00:00.000Z'

  test('the report aggregates per package over the date range, in the chosen mode', async () => {
    const res = await get(userA, `/api/customer/reports/learner-progress?${march}`)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.mode, 'test')
    const [alpha, beta] = body.packages
    assert.equal(body.packages.length, 2)
    assert.deepEqual(
      { ...alpha, average_score: Math.round(alpha.average_score * 1000) / 1000 },
      {
        package_id: 'pkg_alpha',
        package_title: 'Course pkg_alpha',
        learners: 3,
        attempts: 4,
        completion_rate: 0.75,
        pass_rate: 2 / 3,
        average_score: 0.7,
        average_time_seconds: 270,
        median_time_seconds: 210,
      },
    )
    assert.deepEqual(beta, {
      package_id: 'pkg_beta',
      package_title: 'Course pkg_beta',
      learners: 1,
      attempts: 1,
      completion_rate: 0,
      pass_rate: null,
      average_score: null,
      average_time_seconds: 45,
      median_time_seconds: 45,
    })
  })

  test('the report filters by package, and the median of an odd count is the middle value', async () => {
    const res = await get(userA, '/api/customer/reports/learner-progress?package_id=pkg_beta')
    const [beta] = res.json().packages
    assert.equal(res.json().packages.length, 1)
    assert.equal(beta.attempts, 2)
    assert.equal(beta.median_time_seconds, (45 + 1000) / 2)
    const alpha = await get(
      userA,
      `/api/customer/reports/learner-progress?package_id=pkg_alpha&from=2026-03-03T00:00:00.000Z`,
    )
    assert.equal(alpha.json().packages[0].attempts, 3)
    assert.equal(alpha.json().packages[0].median_time_seconds, 300, 'of 120, 300, 600')
  })

  test('mode=live reads only live data', async () => {
    const res = await get(userA, '/api/customer/reports/learner-progress?mode=live')
    assert.deepEqual(
      res.json().packages.map((p: { package_id: string }) => p.package_id),
      ['pkg_live'],
    )
    const pkgs = await get(userA, '/api/customer/packages?mode=live')
    assert.deepEqual(
      pkgs.json().packages.map((p: { id: string }) => p.id),
      ['pkg_live'],
    )
  })

  test('the report as CSV', async () => {
    const res = await get(userA, `/api/customer/reports/learner-progress?${march}&format=csv`)
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/csv/)
    const lines = res.body.trim().split('\r\n')
    assert.equal(
      lines[0],
      'package_id,package_title,learners,attempts,completion_rate,pass_rate,average_score,average_time_seconds,median_time_seconds',
    )
    assert.equal(lines[2], 'pkg_beta,Course pkg_beta,1,1,0,,,45,45')
  })

  test('packages and sessions are the same lists the API gives for the scope', async () => {
    const viaDashboard = (await get(userA, '/api/customer/packages')).json()
    const viaApi = (
      await t.app.inject({ method: 'GET', url: '/api/v1/packages', headers: bearer(a.testKey) })
    ).json()
    assert.deepEqual(viaDashboard, viaApi)
    const sessions = (await get(userA, '/api/customer/sessions?package_id=pkg_alpha')).json()
    assert.equal(sessions.sessions.length, 4)
    const csv = await get(userA, '/api/customer/sessions?format=csv')
    assert.match(String(csv.headers['content-type']), /^text\/csv/)
    assert.equal(csv.body.trim().split('\r\n').length, 1 + 6)
  })

  test("a user of another tenant sees none of it, and another tenant's session is 404", async () => {
    assert.deepEqual((await get(userB, '/api/customer/packages')).json().packages, [])
    assert.deepEqual((await get(userB, '/api/customer/sessions')).json().sessions, [])
    const report = await get(userB, '/api/customer/reports/learner-progress?package_id=pkg_alpha')
    assert.deepEqual(report.json().packages, [])
    // A real session, launched through the API with tenant A's test key.
    const { payload, headers } = multipartFile(fixture('scorm', 'golf', 'singlescobasic.zip'))
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload,
      headers: { ...headers, ...bearer(a.testKey) },
    })
    const launch = await t.app.inject({
      method: 'POST',
      url: `/api/v1/packages/${upload.json().package.id}/launch`,
      headers: bearer(a.testKey),
      payload: { user_id: 'zoe' },
    })
    const sessionId = launch.json().session_id
    const own = await get(userA, `/api/customer/sessions/${sessionId}`)
    assert.equal(own.statusCode, 200, own.body)
    assert.equal(own.json().learner_id, 'zoe')
    assert.equal(
      (await get(userA, `/api/customer/sessions/${sessionId}?mode=live`)).statusCode,
      404,
    )
    const foreign = await get(userB, `/api/customer/sessions/${sessionId}`)
    assert.equal(foreign.statusCode, 404)
  })
})
