import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { buildZip, scorm12Manifest } from '../../helpers/zip-builder.ts'
import { type RunningS3, startS3rver } from '../blobs/s3rver.helper.ts'
import { contentToken, ingest, zipEntries } from './content.helper.ts'

const BIG = randomBytes(5 * 1024 * 1024)

describeEachDatabase('content serving from the S3 backend', (database) => {
  let s3: RunningS3
  let t: TestApp
  let files: Map<string, Buffer>
  let golfToken: string
  let bigToken: string

  before(async () => {
    s3 = await startS3rver()
    t = await createTestApp(database(), {
      env: {
        STORAGE_URL: `s3://${s3.bucket}/content-test`,
        AWS_ENDPOINT_URL: s3.endpoint,
        AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
      },
    })
    assert.equal(t.ctx.blobs.kind, 's3')
    const tenant = await t.createTenant()
    const golf = fixture('scorm', 'golf', 'singlescobasic.zip')
    files = await zipEntries(golf)
    golfToken = contentToken(t, (await ingest(t, tenant, golf)).prefix)
    const big = buildZip([
      { name: 'imsmanifest.xml', data: scorm12Manifest('video.mp4') },
      { name: 'video.mp4', data: BIG, method: 0 },
    ])
    bigToken = contentToken(t, (await ingest(t, tenant, big)).prefix)
  })
  after(async () => {
    await t?.close()
    await s3?.stop()
  })

  const get = (token: string, path: string, headers: Record<string, string> = {}) =>
    t.content.inject({ url: `/c/${token}/${path}`, headers })

  test('files, types and validators come from S3', async () => {
    const types: Record<string, string> = {
      'shared/launchpage.html': 'text/html',
      'shared/scormfunctions.js': 'text/javascript',
      'shared/style.css': 'text/css',
      'shared/cclicense.png': 'image/png',
    }
    for (const [path, type] of Object.entries(types)) {
      const res = await get(golfToken, path)
      assert.equal(res.statusCode, 200, path)
      assert.equal(res.headers['content-type'], type, path)
      assert.deepEqual(res.rawPayload, files.get(path), path)
      assert.match(String(res.headers.etag), /^"[^"]+"$/)
      assert.ok(res.headers['last-modified'])
      assert.equal(res.headers['x-content-type-options'], 'nosniff')
    }
    const { etag } = (await get(golfToken, 'shared/style.css')).headers
    const cached = await get(golfToken, 'shared/style.css', { 'if-none-match': String(etag) })
    assert.equal(cached.statusCode, 304)
    assert.equal(cached.rawPayload.length, 0)
  })

  test('ranges, suffix ranges, 416 and HEAD', async () => {
    const size = BIG.length
    const cases: Array<[string, number, number]> = [
      ['bytes=0-99', 0, 99],
      [`bytes=${size - 1000}-`, size - 1000, size - 1],
      ['bytes=-4096', size - 4096, size - 1],
    ]
    for (const [range, start, end] of cases) {
      const res = await get(bigToken, 'video.mp4', { range })
      assert.equal(res.statusCode, 206, range)
      assert.equal(res.headers['content-type'], 'video/mp4')
      assert.equal(res.headers['content-range'], `bytes ${start}-${end}/${size}`, range)
      assert.deepEqual(res.rawPayload, BIG.subarray(start, end + 1), range)
    }
    const beyond = await get(bigToken, 'video.mp4', { range: `bytes=${size}-` })
    assert.equal(beyond.statusCode, 416)
    assert.equal(beyond.headers['content-range'], `bytes */${size}`)
    const head = await t.content.inject({ method: 'HEAD', url: `/c/${bigToken}/video.mp4` })
    assert.equal(head.statusCode, 200)
    assert.equal(head.headers['content-length'], String(size))
    assert.equal(head.rawPayload.length, 0)
  })

  test('prefixes are not files and there is no listing', async () => {
    for (const path of ['shared', 'shared/', 'nope.html']) {
      assert.equal((await get(golfToken, path)).statusCode, 404, path)
    }
  })

  test('a 5 MB video streams over real HTTP', async () => {
    await t.content.listen({ host: '127.0.0.1', port: 0 })
    try {
      const { port } = t.content.server.address() as AddressInfo
      const url = `http://127.0.0.1:${port}/c/${bigToken}/video.mp4`
      const whole = await fetch(url)
      assert.equal(whole.status, 200)
      assert.ok(Buffer.from(await whole.arrayBuffer()).equals(BIG))
      const tail = await fetch(url, { headers: { range: 'bytes=3000000-' } })
      assert.equal(tail.status, 206)
      assert.ok(Buffer.from(await tail.arrayBuffer()).equals(BIG.subarray(3_000_000)))
    } finally {
      await t.content.close()
    }
  })
})
