import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { FsBlobStore } from '../../../src/infra/blobs/fs-blob-store.ts'
import { AppError } from '../../../src/shared/app-error.ts'
import { systemClock } from '../../../src/shared/clock.ts'
import { collect, describeBlobStore, failingStream, readAll } from './blob-store.suite.ts'
import { startUploadEndpoint } from './upload-endpoint.helper.ts'

const SECRET = 'test-upload-secret-0123456789abcdef'

describeBlobStore('fs', async () => {
  const root = await mkdtemp(join(tmpdir(), 'cp-blobs-'))
  let current: FsBlobStore | undefined
  const endpoint = await startUploadEndpoint({
    secret: SECRET,
    clock: systemClock,
    store: () => {
      assert.ok(current)
      return current
    },
  })
  const create = (options: { clock?: typeof systemClock } = {}) =>
    new FsBlobStore({ root, publicUrl: endpoint.publicUrl, uploadSecret: SECRET, ...options })
  current = create()
  return {
    create,
    async stop() {
      await endpoint.stop()
      await rm(root, { recursive: true, force: true })
    },
  }
})

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((e) => !e.isDirectory()).map((e) => join(e.parentPath, e.name))
}

describe('fs blob store on disk', () => {
  let base: string
  let root: string
  let store: FsBlobStore
  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'cp-blobs-disk-'))
    root = join(base, 'blobs')
    store = new FsBlobStore({ root, publicUrl: 'http://127.0.0.1:9/', uploadSecret: SECRET })
  })
  after(() => rm(base, { recursive: true, force: true }))

  test('objects are plain files under the root, and failed writes leave no temp file', async () => {
    await store.put('t/test/packages/p/v/index.html', Buffer.from('hi'))
    await assert.rejects(store.put('t/test/packages/p/v/big.bin', failingStream(Buffer.alloc(10))))
    await assert.rejects(
      store.put('t/test/packages/p/v/len.bin', failingStream(Buffer.alloc(10)), {
        contentLength: 99,
      }),
    )
    assert.deepEqual(await filesUnder(root), [join(root, 't/test/packages/p/v/index.html')])
  })

  test('a reader keeps the version it opened while a writer replaces it', async () => {
    const key = 'race/big.bin'
    const v1 = Buffer.alloc(2_000_000, 1)
    const v2 = Buffer.alloc(1_000_000, 2)
    await store.put(key, v1)
    const reading = await store.get(key)
    assert.ok(reading)
    await store.put(key, v2)
    assert.deepEqual(await readAll(reading.body), v1)
    const after = await store.get(key)
    assert.ok(after)
    assert.deepEqual(await readAll(after.body), v2)
    assert.notEqual(after.etag, reading.etag)
  })

  test('concurrent puts of one key leave one whole version', async () => {
    const key = 'race/many.txt'
    const versions = Array.from({ length: 20 }, (_, i) => Buffer.alloc(50_000 + i, 65 + i))
    await Promise.all(versions.map((v) => store.put(key, v)))
    const got = await store.get(key)
    assert.ok(got)
    const bytes = await readAll(got.body)
    assert.ok(versions.some((v) => v.equals(bytes)))
    assert.deepEqual(await collect(store.list('race/')), ['race/big.bin', 'race/many.txt'])
  })

  test('symlinks cannot lead reads or writes outside the root', async () => {
    const outside = join(base, 'outside')
    await mkdir(outside, { recursive: true })
    await writeFile(join(outside, 'secret.txt'), 'top secret')
    await mkdir(join(root, 'links'), { recursive: true })
    await symlink(outside, join(root, 'links', 'dir'))
    await symlink(join(outside, 'secret.txt'), join(root, 'links', 'file.txt'))
    await symlink(join(outside, 'nothing-yet.txt'), join(root, 'links', 'dangling.txt'))
    const escapes = (err: unknown) =>
      err instanceof AppError &&
      err.code === 'invalid_request' &&
      (err.details as { reason: string }).reason === 'escapes_root'
    await assert.rejects(store.get('links/dir/secret.txt'), escapes)
    await assert.rejects(store.get('links/file.txt'), escapes)
    await assert.rejects(store.head('links/file.txt'), escapes)
    await assert.rejects(store.put('links/dir/planted.txt', Buffer.from('x')), escapes)
    await assert.rejects(store.put('links/dir/new/planted.txt', Buffer.from('x')), escapes)
    await assert.rejects(store.put('links/dangling.txt', Buffer.from('x')), escapes)
    await assert.rejects(store.delete('links/dir/secret.txt'), escapes)
    await assert.rejects(collect(store.list('links/dir/')), escapes)
    await assert.rejects(store.deletePrefix('links/dir/'), escapes)
    assert.deepEqual((await readdir(outside)).sort(), ['secret.txt'])
    // Listings do not follow links either.
    assert.deepEqual(await collect(store.list('links/')), [])
    // Removing a prefix removes the links, never what they point at.
    await store.deletePrefix('links/')
    assert.deepEqual((await readdir(outside)).sort(), ['secret.txt'])
  })

  test('a symlink that stays inside the root is followed', async () => {
    await store.put('inside/real/a.txt', Buffer.from('inside'))
    await symlink(join(root, 'inside', 'real'), join(root, 'inside', 'alias'))
    const got = await store.get('inside/alias/a.txt')
    assert.ok(got)
    assert.equal((await readAll(got.body)).toString(), 'inside')
  })

  test('a key that clashes with a directory, or runs through a file, is a conflict', async () => {
    await store.put('clash/dir/file.txt', Buffer.from('x'))
    const conflict = (err: unknown) => err instanceof AppError && err.code === 'conflict'
    await assert.rejects(store.put('clash/dir', Buffer.from('x')), conflict)
    await assert.rejects(store.put('clash/dir/file.txt/deeper.txt', Buffer.from('x')), conflict)
    assert.equal(await store.get('clash/dir/file.txt/deeper.txt'), null)
    assert.equal(await store.head('clash/dir'), null)
    await store.delete('clash/dir')
    assert.deepEqual(await collect(store.list('clash/')), ['clash/dir/file.txt'])
  })

  test('an absent root reads as empty and is created on the first write', async () => {
    const lazy = new FsBlobStore({
      root: join(base, 'later', 'blobs'),
      publicUrl: 'http://127.0.0.1:9',
      uploadSecret: SECRET,
    })
    assert.equal(await lazy.head('a.txt'), null)
    assert.deepEqual(await collect(lazy.list('')), [])
    await lazy.put('a.txt', Buffer.from('a'))
    assert.deepEqual(await collect(lazy.list('')), ['a.txt'])
  })

  test('upload URLs point at the service with a token and no secret', async () => {
    const up = await store.createUploadUrl('t/test/uploads/u1/course.zip', {
      contentType: 'application/zip',
      contentLength: 10,
      expiresInSeconds: 60,
    })
    assert.match(up.url, /^http:\/\/127\.0\.0\.1:9\/uploads\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    assert.ok(!up.url.includes(SECRET))
  })
})
