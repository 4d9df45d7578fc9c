import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { buildZip, scorm12Manifest } from '../../helpers/zip-builder.ts'

const zip = (page: string) =>
  buildZip([
    { name: 'imsmanifest.xml', data: scorm12Manifest() },
    { name: 'index.html', data: `<html><body>${page}</body></html>` },
  ])

describeEachDatabase('request rules the same on every endpoint', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let other: TestTenant
  let packageId: string
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant()
    other = await t.createTenant()
    const upload = multipartFile(zip('base'))
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload: upload.payload,
      headers: { ...upload.headers, ...bearer(tenant.testKey) },
    })
    assert.equal(res.statusCode, 201, res.body)
    packageId = res.json().package.id
  })
  after(async () => {
    await t.close()
  })

  const post = (url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: bearer(tenant.testKey), payload })

  test("a foreign tenant_id is a 403 on every body that can carry one; the key's own is accepted", async () => {
    const bodies: Array<[string, Record<string, unknown>]> = [
      ['/api/v1/quick-publish', { title: 'T', slides: [{ title: 'a', content: 'b' }] }],
      [`/api/v1/packages/${packageId}/launch`, { user_id: 'ann@example.com' }],
      ['/api/v1/packages/upload-url', { filename: 'a.zip', file_size: 10 }],
      ['/api/v1/dispatches', { packageId, name: 'LMS' }],
      ['/api/v1/webhooks', { url: 'https://example.com/hook' }],
    ]
    for (const [url, body] of bodies) {
      const foreign = await post(url, { ...body, tenant_id: other.tenantId })
      assert.equal(foreign.statusCode, 403, `${url}: ${foreign.body}`)
      assert.equal(foreign.json().error.code, 'tenant_mismatch')
    }
    for (const [url, body] of bodies.slice(0, 4)) {
      const own = await post(url, { ...body, tenant_id: tenant.tenantId })
      assert.ok(own.statusCode < 300, `${url}: ${own.body}`)
    }
    const upload = multipartFile(zip('x'), { fields: { tenant_id: other.tenantId } })
    const multipart = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload: upload.payload,
      headers: { ...upload.headers, ...bearer(tenant.testKey) },
    })
    assert.equal(multipart.statusCode, 403, multipart.body)
  })

  test('a 1 MiB free-text field is a 400 naming the field, never truncated and stored', async () => {
    const huge = 'x'.repeat(1024 * 1024)
    const upload = multipartFile(zip('big'), { fields: { uploaded_by: huge } })
    const multipart = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload: upload.payload,
      headers: { ...upload.headers, ...bearer(tenant.testKey) },
    })
    assert.equal(multipart.statusCode, 400, multipart.body.slice(0, 300))
    assert.match(multipart.body, /uploaded_by/)
    // JSON bodies over 1 MiB are refused whole (413); 100 KB is far over every field's bound.
    const long = 'x'.repeat(100_000)
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [
        '/api/v1/packages/upload-url',
        { filename: 'a.zip', file_size: 10, uploaded_by: long },
        'uploaded_by',
      ],
      ['/api/v1/packages/process', { storage_path: long }, 'storage_path'],
      [`/api/v1/packages/${packageId}/launch`, { user_id: 'a', session_id: long }, 'session_id'],
      ['/api/v1/dispatches', { packageId: long, name: 'n' }, 'packageId'],
      ['/api/v1/quick-publish', { title: long, slides: [{ title: 'a', content: 'b' }] }, 'title'],
    ]
    for (const [url, body, field] of cases) {
      const res = await post(url, body)
      assert.equal(res.statusCode, 400, `${url}: ${res.body.slice(0, 200)}`)
      assert.ok(res.body.includes(field), `${url} names ${field}`)
    }
  })

  test('an Idempotency-Key retry of a multipart upload with a new boundary is replayed', async () => {
    const send = (page: string) => {
      const { payload, headers } = multipartFile(zip(page), { fields: { uploaded_by: 'ann' } })
      return t.app.inject({
        method: 'POST',
        url: '/api/v1/packages/upload',
        payload,
        headers: { ...headers, ...bearer(tenant.testKey), 'idempotency-key': 'upload-retry-1' },
      })
    }
    const first = await send('same')
    const retry = await send('same')
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(retry.statusCode, 201, retry.body)
    assert.equal(retry.headers['idempotent-replayed'], 'true')
    assert.equal(retry.json().package.id, first.json().package.id)
    const different = await send('another file')
    assert.equal(different.statusCode, 409, different.body)
    assert.equal(different.json().error.code, 'idempotency_conflict')
  })
})
