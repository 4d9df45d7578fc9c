import assert from 'node:assert/strict'
import { createReadStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { after, before, test } from 'node:test'
import { FsBlobStore } from '../../../src/infra/blobs/fs-blob-store.ts'

let dir: string
let store: FsBlobStore
const crashes: unknown[] = []
const onCrash = (err: unknown) => crashes.push(err)
before(() => {
  process.on('uncaughtException', onCrash)
  dir = mkdtempSync(join(tmpdir(), 'cp-stream-errors-'))
  store = new FsBlobStore({
    root: join(dir, 'blobs'),
    publicUrl: 'http://127.0.0.1',
    uploadSecret: 'stream-errors-secret-0123456789',
    fsync: false,
  })
})
after(() => {
  process.off('uncaughtException', onCrash)
  rmSync(dir, { recursive: true, force: true })
})

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}

test('a body that fails before the store listens rejects the put instead of crashing', async () => {
  await assert.rejects(
    store.put('t/a/missing.bin', createReadStream(join(dir, 'no-such-file'))),
    /ENOENT/,
  )
  const body = new PassThrough()
  body.destroy(new Error('client went away'))
  await assert.rejects(store.put('t/a/gone.bin', body), /client went away/)
  await settle()
  assert.deepEqual(crashes, [])
  assert.equal(await store.get('t/a/missing.bin'), null)
})
