import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { freePort, type ServerProcess, startCourseport } from '../../helpers/server-process.ts'
import { type RunningS3, startS3rver } from '../blobs/s3rver.helper.ts'

const ZIP = fixture('scorm', 'golf', 'singlescobasic.zip')

async function upload(server: ServerProcess, key: string) {
  const { payload, headers } = multipartFile(ZIP, { filename: 'golf.zip' })
  const res = await fetch(`${server.url}/api/v1/packages/upload`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${key}` },
    body: new Uint8Array(payload),
  })
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() }
}

async function quickPublish(server: ServerProcess, key: string) {
  const res = await fetch(`${server.url}/api/v1/quick-publish`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ title: 'Outage', slides: [{ title: 'One', content: 'Text' }] }),
  })
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() }
}

describeEachDatabase('an unreachable object store', (database) => {
  let s3: RunningS3
  let s3Dir = ''
  let s3Port = 0
  let dataDir = ''
  let server: ServerProcess
  let key = ''

  before(async () => {
    s3Dir = mkdtempSync(join(tmpdir(), 'cp-outage-s3-'))
    dataDir = mkdtempSync(join(tmpdir(), 'cp-outage-'))
    s3Port = await freePort()
    s3 = await startS3rver('outage', { port: s3Port, directory: s3Dir })
    const port = await freePort()
    server = await startCourseport(['serve', '--no-worker'], {
      PORT: String(port),
      CONTENT_PORT: String(await freePort()),
      DATA_DIR: dataDir,
      DATABASE_URL: database().url,
      STORAGE_URL: 's3://outage/blobs',
      AWS_ENDPOINT_URL: s3.endpoint,
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: '1',
      SECRET_KEY: 'outage-test-secret-key-0123456789abcdef',
      LOG_LEVEL: 'info',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    })
    key = server.testKey ?? ''
    assert.ok(key, server.output())
  })
  after(async () => {
    await server?.stop()
    await s3?.stop().catch(() => {}) // already stopped when the test failed mid-outage
    rmSync(s3Dir, { recursive: true, force: true })
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('uploads answer 503 storage_unavailable with Retry-After, the process stays up, and recovers', async () => {
    assert.equal((await upload(server, key)).status, 201)
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200)

    await s3.stop()
    for (let i = 0; i < 3; i++) {
      const up = await upload(server, key)
      assert.equal(up.status, 503, JSON.stringify(up.body))
      assert.equal(up.body.error.code, 'storage_unavailable')
      assert.match(up.retryAfter ?? '', /^\d+$/)
      const published = await quickPublish(server, key)
      assert.equal(published.status, 503, JSON.stringify(published.body))
      assert.equal(published.body.error.code, 'storage_unavailable')
    }
    const ready = await fetch(`${server.url}/readyz`)
    assert.equal(ready.status, 503)
    assert.deepEqual(await ready.json(), { status: 'storage_unavailable' })
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
    assert.equal(server.child.exitCode, null, server.output())

    s3 = await startS3rver('outage', { port: s3Port, directory: s3Dir })
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200)
    assert.equal((await upload(server, key)).status, 201)
    assert.equal((await quickPublish(server, key)).status, 201)
    assert.equal(server.child.exitCode, null, server.output())
  })
})
