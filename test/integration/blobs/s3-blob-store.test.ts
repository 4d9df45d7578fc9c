import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { createServer as createNetServer } from 'node:net'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3'
import { S3BlobStore } from '../../../src/infra/blobs/s3-blob-store.ts'
import { AppError } from '../../../src/shared/app-error.ts'
import type { Clock } from '../../../src/shared/clock.ts'
import { collect, describeBlobStore, readAll } from './blob-store.suite.ts'
import { type RunningS3, startS3rver } from './s3rver.helper.ts'

function storeOn(s3: RunningS3, prefix: string, extra: { clock?: Clock; max?: number } = {}) {
  return new S3BlobStore({
    url: `s3://${s3.bucket}/${prefix}`,
    endpoint: s3.endpoint,
    region: 'us-east-1',
    credentials: s3.credentials,
    forcePathStyle: true,
    ...(extra.clock && { clock: extra.clock }),
    ...(extra.max !== undefined && { maxBufferedPutBytes: extra.max }),
  })
}

describeBlobStore(
  's3 (s3rver)',
  async () => {
    const s3 = await startS3rver()
    return {
      create: (options = {}) => storeOn(s3, 'suite/blobs', options),
      stop: () => s3.stop(),
    }
  },
  {
    partialObjectAfterAbortedPut:
      's3rver 3.7 streams a PUT straight into the object file and keeps it when the client ' +
      'aborts; real S3 stores nothing for an incomplete body',
  },
)

describe('s3 blob store specifics', () => {
  let s3: RunningS3
  before(async () => {
    s3 = await startS3rver()
  })
  after(() => s3.stop())

  test('objects live under the STORAGE_URL prefix and stores with other prefixes do not see them', async () => {
    const a = storeOn(s3, 'tenant-a/')
    const b = storeOn(s3, 'tenant-b')
    await a.put('x/index.html', Buffer.from('a'))
    await b.put('x/index.html', Buffer.from('b'))
    const raw = await a.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }))
    assert.deepEqual(raw.Contents?.map((o) => o.Key).sort(), [
      'tenant-a/x/index.html',
      'tenant-b/x/index.html',
    ])
    assert.deepEqual(await collect(a.list('')), ['x/index.html'])
    await a.deletePrefix('x/')
    assert.deepEqual(await collect(b.list('')), ['x/index.html'])
    await a.close()
    await b.close()
  })

  test('streamed bodies are stored as sent (no aws-chunked framing) with the guessed type', async () => {
    const store = storeOn(s3, 'chunk')
    const parts = [Buffer.from('body { color: red }\n'), Buffer.from('p { margin: 0 }\n')]
    const total = Buffer.concat(parts).length
    await store.put('site/app.css', Readable.from(parts), { contentLength: total })
    const raw = await store.client.send(
      new GetObjectCommand({ Bucket: s3.bucket, Key: 'chunk/site/app.css' }),
    )
    assert.equal(raw.ContentType, 'text/css')
    assert.equal(await raw.Body?.transformToString(), Buffer.concat(parts).toString())
    await store.close()
  })

  test('an explicit content type is kept', async () => {
    const store = storeOn(s3, 'ctype')
    await store.put('a/data.bin', Buffer.from('{}'), { contentType: 'application/json' })
    assert.equal((await store.head('a/data.bin'))?.contentType, 'application/json')
    await store.close()
  })

  test('a body of unknown length over the buffer cap is refused and nothing is stored', async () => {
    const store = storeOn(s3, 'cap', { max: 1000 })
    await assert.rejects(
      store.put('big.bin', Readable.from([Buffer.alloc(600), Buffer.alloc(600)])),
      (err: unknown) => err instanceof AppError && err.code === 'payload_too_large',
    )
    await store.put('small.bin', Readable.from([Buffer.alloc(600)]))
    assert.deepEqual(await collect(store.list('')), ['small.bin'])
    await store.close()
  })

  test('presigned URLs sign Content-Type and Content-Length and carry no checksum', async () => {
    const store = storeOn(s3, 'presign')
    const up = await store.createUploadUrl('u/course.zip', {
      contentType: 'application/zip',
      contentLength: 42,
      expiresInSeconds: 900,
    })
    const url = new URL(up.url)
    assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'content-length;content-type;host')
    assert.equal(url.searchParams.get('X-Amz-Expires'), '900')
    assert.equal(url.pathname, `/${s3.bucket}/presign/u/course.zip`)
    assert.ok(![...url.searchParams.keys()].some((k) => k.toLowerCase().includes('checksum')))
    await store.close()
  })

  test('a ranged read of a large object streams only the range', async () => {
    const store = storeOn(s3, 'range')
    const bytes = Buffer.alloc(300_000)
    for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251
    await store.put('v.mp4', Readable.from([bytes]), { contentLength: bytes.length })
    const got = await store.get('v.mp4', { start: 100_000, end: 100_999 })
    assert.ok(got)
    assert.deepEqual(await readAll(got.body), bytes.subarray(100_000, 101_000))
    assert.equal(got.size, 300_000)
    await store.close()
  })

  test('an unreachable store fails every operation with storage_unavailable, and checkHealth says so', async () => {
    const server = createNetServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    await new Promise((resolve) => server.close(resolve)) // nothing listens there now
    const store = new S3BlobStore({
      url: 's3://gone/prefix',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: s3.credentials,
      forcePathStyle: true,
    })
    const unavailable = (err: unknown) =>
      err instanceof AppError && err.code === 'storage_unavailable' && err.status === 503
    await assert.rejects(store.checkHealth(), unavailable)
    await assert.rejects(store.put('a.txt', Buffer.from('x')), unavailable)
    await assert.rejects(store.get('a.txt'), unavailable)
    await assert.rejects(store.head('a.txt'), unavailable)
    await assert.rejects(store.delete('a.txt'), unavailable)
    await assert.rejects(collect(store.list('')), unavailable)
    await store.close()
    const live = storeOn(s3, 'health')
    await live.checkHealth()
    await live.close()
  })
})
