import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readlinkSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import { after, before, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { App } from '../../../src/app.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { buildZip, scorm12Manifest } from '../../helpers/zip-builder.ts'
import {
  contentToken,
  ingest,
  rawRequest,
  recordedContentApp,
  type StoreCall,
} from './content.helper.ts'

const SECRET = 'TENANT-B-SECRET-3f9a1c'
const BIG = randomBytes(5 * 1024 * 1024)
const HUGE_BYTES = 48 * 1024 * 1024

/** Paths of the files this process holds open (Linux); null where /proc is unavailable. */
function openFiles(): string[] | null {
  if (!existsSync('/proc/self/fd')) return null
  const paths: string[] = []
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      paths.push(readlinkSync(`/proc/self/fd/${fd}`))
    } catch {
      // closed between the listing and the read
    }
  }
  return paths
}

async function listen(app: App): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  return (app.server.address() as AddressInfo).port
}

describeEachDatabase('content serving over real HTTP', (database) => {
  let t: TestApp
  let recorded: { app: App; calls: StoreCall[] }
  let port: number
  let prefixA: string
  let prefixB: string
  let tokenA: string

  before(async () => {
    t = await createTestApp(database())
    const manifest = { name: 'imsmanifest.xml', data: scorm12Manifest() }
    const index = { name: 'index.html', data: '<html><body>A</body></html>' }
    const zipA = buildZip([
      manifest,
      index,
      { name: 'media/big.bin', data: BIG, method: 0 },
      { name: 'media/huge.bin', data: Buffer.alloc(HUGE_BYTES, 7), method: 0 },
    ])
    const zipB = buildZip([manifest, index, { name: 'secret.html', data: SECRET }])
    prefixA = (await ingest(t, await t.createTenant(), zipA)).prefix
    prefixB = (await ingest(t, await t.createTenant(), zipB)).prefix
    tokenA = contentToken(t, prefixA)
    recorded = await recordedContentApp(t)
    port = await listen(recorded.app)
  })
  after(async () => {
    await recorded.app.close()
    await t.close()
  })

  test('a 5 MB file streams whole and by ranges to fetch()', async () => {
    const url = `http://127.0.0.1:${port}/c/${tokenA}/media/big.bin`
    const whole = await fetch(url)
    assert.equal(whole.status, 200)
    assert.equal(whole.headers.get('content-type'), 'application/octet-stream')
    assert.equal(whole.headers.get('content-length'), String(BIG.length))
    assert.ok(Buffer.from(await whole.arrayBuffer()).equals(BIG))

    const start = 1_000_000
    const end = BIG.length - 1
    const ranged = await fetch(url, { headers: { range: `bytes=${start}-` } })
    assert.equal(ranged.status, 206)
    assert.equal(ranged.headers.get('content-range'), `bytes ${start}-${end}/${BIG.length}`)
    assert.ok(Buffer.from(await ranged.arrayBuffer()).equals(BIG.subarray(start)))

    // A media player's pattern: consecutive 1 MiB windows reassemble the file exactly.
    const parts: Buffer[] = []
    const step = 1024 * 1024
    for (let from = 0; from < BIG.length; from += step) {
      const res = await fetch(url, { headers: { range: `bytes=${from}-${from + step - 1}` } })
      assert.equal(res.status, 206)
      parts.push(Buffer.from(await res.arrayBuffer()))
    }
    assert.ok(Buffer.concat(parts).equals(BIG))
  })

  test('a client that goes away mid-download releases the file', async (context) => {
    const before = openFiles()
    if (before === null) return context.skip('needs /proc/self/fd')
    const hugePath = `${prefixA}/media/huge.bin`
    const isHuge = (path: string) => path.endsWith(hugePath)
    assert.equal(before.filter(isHuge).length, 0)

    const socket = connect(port, '127.0.0.1')
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve)
      socket.once('error', reject)
    })
    socket.write(`GET /c/${tokenA}/media/huge.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
    // Read the first bytes, then stop reading: the server is left mid-file, pushing back.
    const first = await new Promise<Buffer>((resolve) => socket.once('data', resolve))
    socket.pause()
    assert.match(first.toString('latin1'), /^HTTP\/1\.1 200/)
    await sleep(200)
    assert.equal(openFiles()?.filter(isHuge).length, 1, 'streamed, not read into memory')

    socket.destroy()
    let open = 1
    for (let i = 0; i < 100 && open > 0; i++) {
      await sleep(20)
      open = openFiles()?.filter(isHuge).length ?? 0
    }
    assert.equal(open, 0, 'the blob stream was destroyed with the connection')
  })

  test('traversal and encoding tricks never read outside the token prefix', async () => {
    const pvB = prefixB.split('/').at(-1)
    const up = '../'.repeat(prefixA.split('/').length)
    const reachB = `${prefixB}/secret.html`
    // [raw path after /c/{token}/, whether it may reach the store (inside the prefix only)]
    const attempts: Array<[string, boolean]> = [
      [`${up}${reachB}`, false],
      [`${up.replaceAll('/', '%2f')}${reachB}`, false],
      [`${up.replaceAll('../', '..%2F')}${reachB}`, false],
      [`${up.replaceAll('..', '%2e%2e')}${reachB}`, false],
      [`${up.replaceAll('..', '.%2E')}${reachB}`, false],
      [`${up.replaceAll('/', '\\')}${reachB}`, false],
      [`${up.replaceAll('/', '%5c')}${reachB}`, false],
      [`media/../../${pvB}/secret.html`, false],
      [`./index.html`, false],
      [`%2f${reachB}`, false],
      [`/${reachB}`, false],
      ['index.html%00.jpg', false],
      ['%00', false],
      ['media/%0a', false],
      ['%c0%ae%c0%ae/%c0%ae%c0%ae/secret.html', false],
      [`${up.replaceAll('..', '%252e%252e').replaceAll('/', '%252f')}${reachB}`, true],
      [`${up.replaceAll('/', ';/')}${reachB}`, true],
      [`${up.replaceAll('..', '%ef%bc%8e%ef%bc%8e')}${reachB}`, true],
      [`media%2f..%2f..%2f${pvB}%2fsecret.html`, false],
    ]
    const tokenB = contentToken(t, prefixB)
    const direct = await rawRequest(port, `/c/${tokenB}/secret.html`)
    assert.equal(direct.status, 200, "tenant B's file is there to be stolen")
    assert.equal(direct.body.toString(), SECRET)

    for (const [path, mayReachStore] of attempts) {
      recorded.calls.length = 0
      const res = await rawRequest(port, `/c/${tokenA}/${path}`)
      assert.ok([400, 404].includes(res.status), `${path} answered ${res.status}`)
      assert.ok(!res.body.toString('latin1').includes(SECRET), path)
      for (const call of recorded.calls) {
        assert.ok(call.key.startsWith(`${prefixA}/`), `${path} read ${call.key}`)
      }
      if (!mayReachStore) assert.deepEqual(recorded.calls, [], `${path} touched storage`)
    }
  })
})
