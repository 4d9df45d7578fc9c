import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import type { BlobStore } from '../../../src/infra/blobs/blob-store.ts'
import { AppError } from '../../../src/shared/app-error.ts'
import { type Clock, ManualClock } from '../../../src/shared/clock.ts'

/** How a backend's test file provides stores to the shared behavioural suite. */
export interface BlobStoreHarness {
  /** A store over the same storage; `clock` drives upload-URL signing. */
  create(options?: { clock?: Clock }): BlobStore
  stop(): Promise<void>
}

export async function readAll(body: Readable): Promise<Buffer> {
  return Buffer.concat((await body.toArray()) as Buffer[])
}

export async function collect(keys: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = []
  for await (const key of keys) out.push(key)
  return out.sort()
}

/** Yields `good` then fails, like a client that disconnects mid-upload. */
export function failingStream(good: Buffer): Readable {
  let sent = false
  return new Readable({
    read() {
      if (!sent) {
        sent = true
        this.push(good)
        setTimeout(() => this.destroy(new Error('client went away')), 20)
      }
    },
  })
}

export const HOSTILE_KEYS = [
  '',
  '/etc/passwd',
  '../outside.txt',
  'a/../../outside.txt',
  'a/..',
  'a/./b.txt',
  './a.txt',
  'a//b.txt',
  'a/',
  'a\\..\\b.txt',
  'a/b\u0000.txt',
  'a/b\n.txt',
  'C:/windows/win.ini',
  'a/.cp-tmp-reserved',
  `${'x/'.repeat(600)}y`,
]

function isInvalidRequest(err: unknown): boolean {
  return err instanceof AppError && err.code === 'invalid_request'
}

/** Known departures of a test double from the real service, each with its reason. */
export interface BlobStoreQuirks {
  /** Set (to the reason) when the storage keeps the bytes of a PUT whose client aborted. */
  partialObjectAfterAbortedPut?: string
}

/** The behaviour every BlobStore backend must show; run once per backend. */
export function describeBlobStore(
  name: string,
  setup: () => Promise<BlobStoreHarness>,
  quirks: BlobStoreQuirks = {},
): void {
  describe(`${name} blob store`, () => {
    let harness: BlobStoreHarness
    let store: BlobStore
    let n = 0
    /** A fresh key prefix per test, so tests share one store without seeing each other. */
    const area = () => `case-${++n}`

    before(async () => {
      harness = await setup()
      store = harness.create()
    })
    after(async () => {
      await store.close?.()
      await harness.stop()
    })

    test('checkHealth resolves while the store answers', async () => {
      await store.checkHealth()
    })

    test('put then get returns the bytes with size, strong ETag, date and type', async () => {
      const key = `${area()}/course/index.html`
      const bytes = Buffer.from('<!doctype html><title>hi</title>')
      assert.deepEqual(await store.put(key, bytes), { size: bytes.length })
      const got = await store.get(key)
      assert.ok(got)
      assert.deepEqual(await readAll(got.body), bytes)
      assert.equal(got.key, key)
      assert.equal(got.size, bytes.length)
      assert.match(got.etag, /^"[^"]+"$/)
      assert.ok(got.lastModified instanceof Date && !Number.isNaN(got.lastModified.getTime()))
      assert.equal(got.contentType, 'text/html')
      assert.equal(got.range, undefined)
    })

    test('putFile stores a local file; deferred puts are readable and flush makes them durable', async () => {
      const base = area()
      const dir = await mkdtemp(join(tmpdir(), 'cp-putfile-'))
      try {
        const local = join(dir, 'original.zip')
        const bytes = Buffer.alloc(300_000, 0x5a)
        await writeFile(local, bytes)
        assert.deepEqual(await store.putFile(`${base}/copy.zip`, local, { deferSync: true }), {
          size: bytes.length,
        })
        await store.put(`${base}/a.txt`, Buffer.from('deferred'), {
          deferSync: true,
          inPlace: true,
        })
        await store.put(`${base}/b.txt`, Readable.from([Buffer.from('streamed')]), {
          contentLength: 8,
          deferSync: true,
        })
        await store.flush()
        const copy = await store.get(`${base}/copy.zip`)
        assert.ok(copy)
        assert.deepEqual(await readAll(copy.body), bytes)
        const a = await store.get(`${base}/a.txt`)
        assert.equal((await readAll(a?.body as Readable)).toString(), 'deferred')
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })

    test('streams of known and unknown length are stored whole', async () => {
      const base = area()
      const parts = [Buffer.from('var a = 1;\n'), Buffer.alloc(70_000, 0x61), Buffer.from('end')]
      const whole = Buffer.concat(parts)
      await store.put(`${base}/known.js`, Readable.from(parts), { contentLength: whole.length })
      await store.put(`${base}/unknown.js`, Readable.from(parts))
      for (const key of [`${base}/known.js`, `${base}/unknown.js`]) {
        const got = await store.get(key)
        assert.ok(got)
        assert.deepEqual(await readAll(got.body), whole)
        assert.equal(got.contentType, 'text/javascript')
      }
    })

    test('keys with spaces and non-ASCII names round-trip', async () => {
      const key = `${area()}/Mödule 1/fïle (copy) #2 & more+.txt`
      await store.put(key, Buffer.from('ok'))
      const got = await store.get(key)
      assert.ok(got)
      assert.equal((await readAll(got.body)).toString(), 'ok')
      assert.deepEqual(await collect(store.list(key.slice(0, key.indexOf('/') + 1))), [key])
    })

    test('an overwrite replaces the bytes and changes the ETag', async () => {
      const key = `${area()}/data.json`
      await store.put(key, Buffer.from('{"v":1}'))
      const first = await store.head(key)
      await store.put(key, Buffer.from('{"v":22}'))
      const second = await store.head(key)
      assert.ok(first && second)
      assert.notEqual(first.etag, second.etag)
      assert.equal(second.size, 8)
      const got = await store.get(key)
      assert.ok(got)
      assert.equal((await readAll(got.body)).toString(), '{"v":22}')
    })

    test('head matches get and is null for absent keys', async () => {
      const key = `${area()}/pic.png`
      await store.put(key, Buffer.from([0x89, 0x50, 0x4e, 0x47]))
      const meta = await store.head(key)
      const got = await store.get(key)
      assert.ok(meta && got)
      got.body.destroy()
      assert.equal(meta.etag, got.etag)
      assert.equal(meta.size, 4)
      assert.equal(meta.contentType, 'image/png')
      assert.equal(await store.head(`${area()}/missing.png`), null)
      assert.equal(await store.get(`${area()}/missing.png`), null)
      // A key that only prefixes others is not an object.
      assert.equal(await store.head(key.slice(0, key.lastIndexOf('/'))), null)
    })

    test('ranges are inclusive, clamped, and unsatisfiable past the end', async () => {
      const key = `${area()}/video.mp4`
      const bytes = Buffer.from('0123456789')
      await store.put(key, bytes)
      const cases: [{ start: number; end?: number }, string, { start: number; end: number }][] = [
        [{ start: 0, end: 4 }, '01234', { start: 0, end: 4 }],
        [{ start: 5 }, '56789', { start: 5, end: 9 }],
        [{ start: 7, end: 1000 }, '789', { start: 7, end: 9 }],
        [{ start: 9, end: 9 }, '9', { start: 9, end: 9 }],
      ]
      for (const [asked, text, served] of cases) {
        const got = await store.get(key, asked)
        assert.ok(got)
        assert.equal((await readAll(got.body)).toString(), text, JSON.stringify(asked))
        assert.deepEqual(got.range, served)
        assert.equal(got.size, 10)
        assert.equal(got.unsatisfiable, undefined)
      }
      const past = await store.get(key, { start: 10 })
      assert.ok(past)
      assert.equal(past.unsatisfiable, true)
      assert.equal(past.size, 10)
      assert.equal(past.range, undefined)
      assert.equal((await readAll(past.body)).length, 0)
      await assert.rejects(store.get(key, { start: 5, end: 2 }), isInvalidRequest)
      await assert.rejects(store.get(key, { start: -1 }), isInvalidRequest)
      assert.equal(await store.get(`${area()}/missing.mp4`, { start: 0 }), null)
    })

    test('an empty object reads as empty and any range on it is unsatisfiable', async () => {
      const key = `${area()}/empty.txt`
      assert.deepEqual(await store.put(key, Buffer.alloc(0)), { size: 0 })
      const got = await store.get(key)
      assert.ok(got)
      assert.equal((await readAll(got.body)).length, 0)
      const ranged = await store.get(key, { start: 0 })
      assert.ok(ranged)
      assert.equal(ranged.unsatisfiable, true)
      assert.equal(ranged.size, 0)
      ranged.body.destroy()
    })

    test('delete removes one object and ignores absent keys', async () => {
      const base = area()
      await store.put(`${base}/a.txt`, Buffer.from('a'))
      await store.put(`${base}/b.txt`, Buffer.from('b'))
      await store.delete(`${base}/a.txt`)
      await store.delete(`${base}/a.txt`)
      await store.delete(`${base}/never/was.txt`)
      assert.equal(await store.head(`${base}/a.txt`), null)
      assert.deepEqual(await collect(store.list(`${base}/`)), [`${base}/b.txt`])
    })

    test('list is recursive, string-prefixed, and empty for unknown prefixes', async () => {
      const base = area()
      const keys = [
        `${base}/pkg/v1/index.html`,
        `${base}/pkg/v1/js/app.js`,
        `${base}/pkg/v1/js/lib/x.js`,
        `${base}/pkg/v10/index.html`,
        `${base}/pkg/v2.zip`,
        `${base}/other.txt`,
      ]
      for (const key of keys) await store.put(key, Buffer.from(key))
      assert.deepEqual(await collect(store.list(`${base}/`)), [...keys].sort())
      assert.deepEqual(await collect(store.list(`${base}/pkg/v1/`)), keys.slice(0, 3).sort())
      assert.deepEqual(await collect(store.list(`${base}/pkg/v1`)), keys.slice(0, 4).sort())
      assert.deepEqual(await collect(store.list(`${base}/pkg/v`)), keys.slice(0, 5).sort())
      assert.deepEqual(await collect(store.list(`${base}/nothing/`)), [])
      assert.deepEqual(await collect(store.list(`${base}/pkg/v1/index.html`)), [keys[0]])
      assert.deepEqual(await collect(store.list(`${base}/pkg/v1/index.html/`)), [])
    })

    test('deletePrefix removes exactly the keys starting with the prefix', async () => {
      const base = area()
      const keys = [
        `${base}/pv_1/index.html`,
        `${base}/pv_1/a/b/c.css`,
        `${base}/pv_10/index.html`,
        `${base}/pv_2/index.html`,
      ]
      for (const key of keys) await store.put(key, Buffer.from('x'))
      await store.deletePrefix(`${base}/pv_1/`)
      assert.deepEqual(await collect(store.list(`${base}/`)), [keys[2], keys[3]].sort())
      await store.deletePrefix(`${base}/pv_`)
      assert.deepEqual(await collect(store.list(`${base}/`)), [])
      await store.deletePrefix(`${base}/absent/`)
      await assert.rejects(store.deletePrefix(''), isInvalidRequest)
    })

    test('more than one listing page is listed and deleted', async () => {
      const base = area()
      const keys = Array.from(
        { length: 1005 },
        (_, i) => `${base}/f/${String(i).padStart(4, '0')}.txt`,
      )
      for (let i = 0; i < keys.length; i += 50) {
        await Promise.all(keys.slice(i, i + 50).map((key) => store.put(key, Buffer.from('.'))))
      }
      assert.equal((await collect(store.list(`${base}/`))).length, 1005)
      await store.deletePrefix(`${base}/f/`)
      assert.deepEqual(await collect(store.list(`${base}/`)), [])
    })

    test('a failed upload of unknown length leaves the previous object and nothing else', async () => {
      const base = area()
      const key = `${base}/course.zip`
      await store.put(key, Buffer.from('old version'))
      await assert.rejects(store.put(key, failingStream(Buffer.from('new ver'))), /went away/)
      await assert.rejects(store.put(`${base}/fresh.zip`, failingStream(Buffer.from('new'))))
      const got = await store.get(key)
      assert.ok(got)
      assert.equal((await readAll(got.body)).toString(), 'old version')
      assert.deepEqual(await collect(store.list(`${base}/`)), [key])
    })

    test('a streamed upload cut off midway fails with the stream error', async () => {
      const base = area()
      await assert.rejects(
        store.put(`${base}/cut.zip`, failingStream(Buffer.from('partial')), { contentLength: 100 }),
        /went away/,
      )
    })

    test('a streamed upload cut off midway leaves the previous object and nothing else', {
      skip: quirks.partialObjectAfterAbortedPut ?? false,
    }, async () => {
      const base = area()
      const key = `${base}/course.zip`
      await store.put(key, Buffer.from('old version'))
      await assert.rejects(
        store.put(key, failingStream(Buffer.from('new ver')), { contentLength: 100 }),
      )
      await assert.rejects(
        store.put(`${base}/fresh.zip`, failingStream(Buffer.from('new')), { contentLength: 100 }),
      )
      const got = await store.get(key)
      assert.ok(got)
      assert.equal((await readAll(got.body)).toString(), 'old version')
      assert.deepEqual(await collect(store.list(`${base}/`)), [key])
    })

    test('a body whose length differs from the declared one is refused', async () => {
      const base = area()
      await assert.rejects(
        store.put(`${base}/short.txt`, Readable.from([Buffer.from('abc')]), { contentLength: 5 }),
        isInvalidRequest,
      )
      await assert.rejects(
        store.put(`${base}/long.txt`, Readable.from([Buffer.from('abcdefg')]), {
          contentLength: 5,
        }),
        isInvalidRequest,
      )
      await assert.rejects(
        store.put(`${base}/buf.txt`, Buffer.from('abc'), { contentLength: 5 }),
        isInvalidRequest,
      )
      if (!quirks.partialObjectAfterAbortedPut) {
        assert.deepEqual(await collect(store.list(`${base}/`)), [])
      }
    })

    test('hostile keys are refused by every operation', async () => {
      for (const key of HOSTILE_KEYS) {
        const label = JSON.stringify(key)
        await assert.rejects(store.put(key, Buffer.from('x')), isInvalidRequest, `put ${label}`)
        await assert.rejects(store.get(key), isInvalidRequest, `get ${label}`)
        await assert.rejects(store.head(key), isInvalidRequest, `head ${label}`)
        await assert.rejects(store.delete(key), isInvalidRequest, `delete ${label}`)
        await assert.rejects(
          store.createUploadUrl(key, { expiresInSeconds: 60 }),
          isInvalidRequest,
          `createUploadUrl ${label}`,
        )
      }
      for (const prefix of ['../', '/etc/', 'a/../', 'a//', 'a\\b/', '../x']) {
        await assert.rejects(collect(store.list(prefix)), isInvalidRequest, `list ${prefix}`)
        await assert.rejects(store.deletePrefix(prefix), isInvalidRequest, `delete ${prefix}`)
      }
    })

    test('an upload URL accepts one PUT with the signed headers', async () => {
      const key = `${area()}/upl/course.zip`
      const bytes = Buffer.from('PK\u0003\u0004 pretend zip')
      const upload = await store.createUploadUrl(key, {
        contentType: 'application/zip',
        contentLength: bytes.length,
        expiresInSeconds: 300,
      })
      assert.equal(upload.headers['Content-Type'], 'application/zip')
      assert.equal(upload.headers['Content-Length'], String(bytes.length))
      assert.ok(upload.expiresAt.getTime() > Date.now() + 250_000)
      const response = await fetch(upload.url, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/zip' },
        body: bytes,
      })
      assert.ok(response.ok, `${response.status} ${await response.text()}`)
      const got = await store.get(key)
      assert.ok(got)
      assert.deepEqual(await readAll(got.body), bytes)
      assert.equal(got.contentType, 'application/zip')
    })

    test('an expired upload URL is refused and stores nothing', async () => {
      const key = `${area()}/late.zip`
      const clock = new ManualClock(new Date(Date.now() - 2 * 3600_000))
      const past = harness.create({ clock })
      const upload = await past.createUploadUrl(key, { expiresInSeconds: 60 })
      await past.close?.()
      const response = await fetch(upload.url, { method: 'PUT', body: Buffer.from('late') })
      assert.equal(response.status, 403)
      await response.body?.cancel()
      assert.equal(await store.head(key), null)
    })

    test('upload URL requests that cannot be signed safely are refused', async () => {
      const key = `${area()}/x.zip`
      for (const bad of [
        { expiresInSeconds: 0 },
        { expiresInSeconds: 8 * 24 * 3600 },
        { expiresInSeconds: 1.5 },
        { expiresInSeconds: 60, contentLength: -1 },
        { expiresInSeconds: 60, contentType: 'text/html\r\nX-Evil: 1' },
      ]) {
        await assert.rejects(store.createUploadUrl(key, bad), isInvalidRequest, JSON.stringify(bad))
      }
    })
  })
}
