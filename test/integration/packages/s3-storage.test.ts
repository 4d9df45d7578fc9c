import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { type RunningS3, startS3rver } from '../blobs/s3rver.helper.ts'

describeEachDatabase('packages on S3 storage (s3rver on loopback)', (database) => {
  let s3: RunningS3
  let t: TestApp
  let tenant: TestTenant
  before(async () => {
    s3 = await startS3rver('courseport-packages')
    t = await createTestApp(database(), {
      env: {
        STORAGE_URL: `s3://${s3.bucket}/cp`,
        AWS_ENDPOINT_URL: s3.endpoint,
        AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
      },
    })
    tenant = await t.createTenant()
  })
  after(async () => {
    await t.close()
    await s3.stop()
  })

  test('the presigned flow PUTs straight to the bucket, then processing stores the package there', async () => {
    assert.equal(t.ctx.blobs.kind, 's3')
    const zip = fixture('scorm', 'golf', 'singlescobasic.zip')
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers: bearer(tenant.testKey),
      payload: { filename: 'basic.zip', file_size: zip.length },
    })
    assert.equal(issued.statusCode, 200, issued.body)
    const { presigned_url, required_put_headers, storage_path } = issued.json()
    assert.ok(presigned_url.startsWith(s3.endpoint), presigned_url)
    const put = await fetch(presigned_url, {
      method: 'PUT',
      headers: required_put_headers,
      body: new Uint8Array(zip),
    })
    assert.equal(put.status, 200)
    const processed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/process',
      headers: bearer(tenant.testKey),
      payload: { storage_path },
    })
    assert.equal(processed.statusCode, 201, processed.body)
    const pkg = processed.json().package
    const keys: string[] = []
    for await (const key of t.ctx.blobs.list(`${tenant.tenantId}/test/packages/${pkg.id}/`))
      keys.push(key)
    assert.ok(keys.some((k) => k.endsWith('/imsmanifest.xml')))
    assert.ok(keys.some((k) => k.endsWith('.zip')))
    const download = await t.app.inject({
      url: `/api/v1/packages/${pkg.id}/download`,
      headers: bearer(tenant.testKey),
    })
    assert.ok(download.rawPayload.equals(zip))
  })

  test('a multipart upload lands in the bucket too, and a refused one leaves nothing there', async () => {
    const ok = multipartFile(fixture('scorm', 'golf', 'singlesco_scorm12.zip'))
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload: ok.payload,
      headers: { ...ok.headers, ...bearer(tenant.liveKey) },
    })
    assert.equal(res.statusCode, 201, res.body)
    const bad = multipartFile(fixture('scorm', 'invalid', 'validaicc.zip'))
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload: bad.payload,
      headers: { ...bad.headers, ...bearer(tenant.liveKey) },
    })
    assert.equal(refused.statusCode, 422)
    const keys: string[] = []
    for await (const key of t.ctx.blobs.list(`${tenant.tenantId}/live/packages/`)) keys.push(key)
    const packageIds = new Set(keys.map((k) => k.split('/')[3]))
    assert.deepEqual([...packageIds], [res.json().package.id])
  })
})
