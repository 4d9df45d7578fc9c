import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'

describeEachDatabase('tenant and mode isolation', (database) => {
  let t: TestApp
  let owner: TestTenant
  let other: TestTenant
  let pkgId: string
  let versionId: string
  let storagePath: string

  before(async () => {
    t = await createTestApp(database())
    owner = await t.createTenant()
    other = await t.createTenant()
    const { payload, headers } = multipartFile(fixture('scorm', 'golf', 'singlescobasic.zip'))
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload,
      headers: { ...headers, ...bearer(owner.testKey) },
    })
    pkgId = res.json().package.id
    versionId = res.json().package.active_version_id
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers: bearer(owner.testKey),
      payload: { filename: 'x.zip', file_size: 10 },
    })
    storagePath = issued.json().storage_path
  })
  after(() => t.close())

  const requests = () => [
    { method: 'GET' as const, url: `/api/v1/packages/${pkgId}` },
    { method: 'GET' as const, url: `/api/v1/packages/${pkgId}/download` },
    { method: 'POST' as const, url: `/api/v1/packages/${pkgId}/archive` },
    { method: 'POST' as const, url: `/api/v1/packages/${pkgId}/restore` },
    { method: 'POST' as const, url: `/api/v1/packages/${pkgId}/versions/${versionId}/activate` },
    {
      method: 'POST' as const,
      url: `/api/v1/packages/${pkgId}/versions`,
      payload: { storage_path: storagePath },
    },
    {
      method: 'POST' as const,
      url: '/api/v1/packages/process',
      payload: { storage_path: storagePath },
    },
  ]

  for (const [who, key] of [
    ['another tenant (test key)', () => other.testKey],
    ['another tenant (live key)', () => other.liveKey],
    ['the same tenant in live mode', () => owner.liveKey],
  ] as const) {
    test(`${who} gets 404 on every endpoint and sees nothing listed`, async () => {
      for (const request of requests()) {
        const res = await t.app.inject({ ...request, headers: bearer(key()) })
        assert.equal(res.statusCode, 404, `${request.method} ${request.url}: ${res.body}`)
        assert.ok(!res.body.includes(owner.tenantId), 'no owner data in the error')
      }
      const list = await t.app.inject({ url: '/api/v1/packages', headers: bearer(key()) })
      assert.deepEqual(list.json().packages, [])
    })
  }

  test("the owner's package is untouched by those attempts", async () => {
    const res = await t.app.inject({
      url: `/api/v1/packages/${pkgId}`,
      headers: bearer(owner.testKey),
    })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().package.status, 'active')
  })
})

describeEachDatabase('API keys', (database) => {
  let t: TestApp
  let tenant: TestTenant
  before(async () => {
    t = await createTestApp(database(), { env: { RATE_LIMIT_PER_MINUTE: '5' } })
    tenant = await t.createTenant()
  })
  after(() => t.close())

  test('missing, malformed and unknown keys are 401 with the error shape', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer nope' },
      { authorization: `Bearer cp_test_${'A'.repeat(43)}` },
      { 'x-api-key': 'cp_live_short' },
    ]) {
      const res = await t.app.inject({ url: '/api/v1/packages', headers })
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().error.code, 'unauthorized')
    }
  })

  test('X-API-Key works like Bearer', async () => {
    const res = await t.app.inject({
      url: '/api/v1/packages',
      headers: { 'x-api-key': tenant.liveKey },
    })
    assert.equal(res.statusCode, 200)
  })

  test('a revoked key stops working on the next request', async () => {
    const created = await t.ctx.services.tenants.createKey(tenant.tenantId, 'test')
    const before = await t.app.inject({ url: '/api/v1/packages', headers: bearer(created.key) })
    assert.equal(before.statusCode, 200)
    await t.ctx.services.tenants.revokeKey(created.id)
    const afterRevoke = await t.app.inject({
      url: '/api/v1/packages',
      headers: bearer(created.key),
    })
    assert.equal(afterRevoke.statusCode, 401)
  })

  test('beyond the per-key rate limit: 429 with Retry-After, other keys unaffected', async () => {
    const statuses: number[] = []
    let last = await t.app.inject({ url: '/api/v1/packages', headers: bearer(tenant.testKey) })
    for (let i = 0; i < 6; i++) {
      last = await t.app.inject({ url: '/api/v1/packages', headers: bearer(tenant.testKey) })
      statuses.push(last.statusCode)
    }
    assert.ok(statuses.includes(429), statuses.join(','))
    const limited = statuses.indexOf(429)
    assert.ok(statuses.slice(limited).every((s) => s === 429))
    const res = await t.app.inject({ url: '/api/v1/packages', headers: bearer(tenant.testKey) })
    assert.equal(res.statusCode, 429)
    assert.equal(res.json().error.code, 'rate_limited')
    assert.ok(Number(res.headers['retry-after']) > 0)
    const otherKey = await t.app.inject({
      url: '/api/v1/packages',
      headers: bearer(tenant.liveKey),
    })
    assert.equal(otherKey.statusCode, 200)
  })
})
