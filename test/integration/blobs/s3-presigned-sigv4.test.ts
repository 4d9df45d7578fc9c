import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { S3BlobStore } from '../../../src/infra/blobs/s3-blob-store.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer, createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { type SigV4Proxy, startSigV4Proxy } from '../../helpers/sigv4-proxy.ts'
import { type RunningS3, startS3rver } from './s3rver.helper.ts'

// s3rver accepts any signature made with its key pair; real S3 checks them. Every request here
// goes through a proxy that checks SigV4 as S3 does, so a presigned URL that S3 would refuse is
// refused here too.
const KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }

async function startSignedS3(bucket: string): Promise<{ s3: RunningS3; proxy: SigV4Proxy }> {
  const s3 = await startS3rver(bucket)
  const proxy = await startSigV4Proxy({ upstream: s3.endpoint, ...KEYS })
  return { s3, proxy }
}

describe('presigned PUT URLs against a SigV4-checking store', () => {
  let s3: RunningS3
  let proxy: SigV4Proxy
  let store: S3BlobStore
  const clock = new ManualClock(new Date())
  before(async () => {
    ;({ s3, proxy } = await startSignedS3('sigv4'))
    store = new S3BlobStore({
      url: `s3://${s3.bucket}/p`,
      endpoint: proxy.url,
      credentials: KEYS,
      forcePathStyle: true,
      clock,
    })
  })
  after(async () => {
    await store.close()
    await proxy.close()
    await s3.stop()
  })

  test('the SDK own requests pass the check (the proxy verifies real signatures)', async () => {
    await store.put('a/ok.txt', Buffer.from('signed'))
    assert.equal((await store.head('a/ok.txt'))?.size, 6)
    assert.deepEqual(proxy.refusals, [])
  })

  test('a PUT sending exactly required_put_headers is accepted, and they are what was signed', async () => {
    const body = Buffer.from('zip bytes')
    const issued = await store.createUploadUrl('uploads/u1/course.zip', {
      contentLength: body.length,
      expiresInSeconds: 600,
    })
    const signed = new URL(issued.url).searchParams.get('X-Amz-SignedHeaders')?.split(';') ?? []
    assert.deepEqual(
      Object.keys(issued.headers)
        .map((h) => h.toLowerCase())
        .sort(),
      signed.filter((h) => h !== 'host').sort(),
    )
    const put = await fetch(issued.url, {
      method: 'PUT',
      headers: issued.headers,
      body: new Uint8Array(body),
    })
    assert.equal(put.status, 200, `${await put.text()} ${proxy.refusals.join('; ')}`)
    assert.equal((await store.head('uploads/u1/course.zip'))?.size, body.length)
  })

  test('a PUT that leaves out or changes a signed header, alters the URL, or comes after expiry is refused', async () => {
    const body = Buffer.from('zip bytes')
    const issued = await store.createUploadUrl('uploads/u2/course.zip', {
      contentType: 'application/zip',
      contentLength: body.length,
      expiresInSeconds: 60,
    })
    const put = (url: string, headers: Record<string, string>, bytes = body) =>
      fetch(url, { method: 'PUT', headers, body: new Uint8Array(bytes) })
    const { 'Content-Type': _dropped, ...withoutType } = issued.headers
    assert.equal((await put(issued.url, withoutType)).status, 403)
    assert.equal(
      (await put(issued.url, { ...issued.headers, 'Content-Type': 'text/html' })).status,
      403,
    )
    const other = Buffer.from('other size')
    const resized = { ...issued.headers, 'Content-Length': String(other.length) }
    assert.equal((await put(issued.url, resized, other)).status, 403)
    const otherKey = issued.url.replace('/u2/', '/u3/')
    assert.equal((await put(otherKey, issued.headers)).status, 403)
    assert.equal(await store.head('uploads/u2/course.zip'), null)
    clock.set(new Date(Date.now() - 10_000)) // signed 10 s ago, valid for 1 s
    const expired = await store.createUploadUrl('uploads/u5/course.zip', {
      contentLength: body.length,
      expiresInSeconds: 1,
    })
    clock.set(new Date())
    assert.equal((await put(expired.url, expired.headers)).status, 403)
    assert.equal((await put(issued.url, issued.headers)).status, 200, 'the unaltered PUT works')
  })
})

describeEachDatabase('the presigned upload flow against a SigV4-checking store', (database) => {
  let s3: RunningS3
  let proxy: SigV4Proxy
  let t: TestApp
  before(async () => {
    ;({ s3, proxy } = await startSignedS3('sigv4-flow'))
    t = await createTestApp(database(), {
      env: {
        STORAGE_URL: `s3://${s3.bucket}/cp`,
        AWS_ENDPOINT_URL: proxy.url,
        AWS_ACCESS_KEY_ID: KEYS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: KEYS.secretAccessKey,
        S3_FORCE_PATH_STYLE: 'yes',
      },
    })
  })
  after(async () => {
    await t.close()
    await proxy.close()
    await s3.stop()
  })

  test('upload-url, a PUT with exactly required_put_headers, then process', async () => {
    const tenant = await t.createTenant()
    const zip = fixture('scorm', 'golf', 'singlescobasic.zip')
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers: bearer(tenant.testKey),
      payload: { filename: 'basic.zip', file_size: zip.length },
    })
    assert.equal(issued.statusCode, 200, issued.body)
    const { presigned_url, required_put_headers, storage_path } = issued.json()
    const put = await fetch(presigned_url, {
      method: 'PUT',
      headers: required_put_headers,
      body: new Uint8Array(zip),
    })
    assert.equal(put.status, 200, `${await put.text()} ${proxy.refusals.join('; ')}`)
    const processed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/process',
      headers: bearer(tenant.testKey),
      payload: { storage_path },
    })
    assert.equal(processed.statusCode, 201, processed.body)
  })
})
