/**
 * The content origin answers plain GETs of cached small files, and single ranges of bytes
 * already in memory (small files, media blocks), in front of Fastify (content-fast-path.ts).
 * Those answers must be the ones Fastify gives, and everything else — errors, HEAD, suffix and
 * multiple ranges, If-Range, unsatisfiable ranges, conditional requests, expired tokens, another
 * tenant's host — must still reach Fastify. Two apps on one context: one with the fast path, one
 * without as the reference; both keep files up to 8 KiB in memory and media in 1 000-byte blocks,
 * so a small "video" spans many blocks.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { contentRoutes } from '../../../src/http/content/content.routes.ts'
import { SmallFileCache } from '../../../src/http/content/small-file.cache.ts'
import { registerErrorHandling } from '../../../src/http/plugins/error-handler.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { tenantLabel } from '../../../src/shared/content-origin.ts'
import { signToken } from '../../../src/shared/signed-token.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { buildZip, scorm12Manifest } from '../../helpers/zip-builder.ts'
import { ingest, type RawResponse, rawRequest } from './content.helper.ts'

const BARE = 'localhost:18081'
const BLOCK = 1000
/** 10.5 blocks: the last block is a short one. */
const VIDEO = randomBytes(10 * BLOCK + 500)
const PAGE = '<html><body>Lesson</body></html>'
/** Headers that differ between any two answers: when, and the connection's own. */
const PER_RESPONSE = new Set(['date', 'connection', 'keep-alive'])

function comparable(response: RawResponse) {
  const headers = Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => !PER_RESPONSE.has(name)),
  )
  // The order too: the fast answer is meant to be the same bytes, not just the same fields.
  const order = Object.keys(headers)
  return { status: response.status, headers, order, body: response.body.toString('base64') }
}

describeEachDatabase('content fast path: cached files without the framework', (database) => {
  let t: TestApp
  let clock: ManualClock
  let prefix: string
  let tenantId: string
  const apps: FastifyInstance[] = []
  let fastPort: number
  let referencePort: number
  /** Requests that reached Fastify on the fast-path app. */
  let reachedFastify = 0

  async function contentApp(fastPath: boolean, count: boolean): Promise<number> {
    const app = Fastify({ routerOptions: { maxParamLength: 2048 } })
    if (count) {
      app.addHook('onRequest', async () => {
        reachedFastify++
      })
    }
    registerErrorHandling(app)
    await app.register(contentRoutes, {
      ctx: t.ctx,
      cache: new SmallFileCache({ maxFileBytes: 8192 }),
      mediaBlocks: new SmallFileCache({ maxFileBytes: BLOCK, maxTotalBytes: 100 * BLOCK }),
      fastPath,
    })
    await app.listen({ host: '127.0.0.1', port: 0 })
    apps.push(app)
    return (app.server.address() as AddressInfo).port
  }

  before(async () => {
    clock = new ManualClock(new Date())
    t = await createTestApp(database(), {
      clock,
      env: { CONTENT_URL: `http://${BARE}`, CONTENT_ORIGINS: 'tenant' },
    })
    const tenant = await t.createTenant()
    tenantId = tenant.tenantId
    const zip = buildZip([
      { name: 'imsmanifest.xml', data: scorm12Manifest() },
      { name: 'index.html', data: PAGE },
      { name: 'media/video.mp4', data: VIDEO },
      { name: 'js/app.js', data: 'var x = 1\n'.repeat(500) },
      { name: 'data/blob.unknownext', data: Buffer.from([1, 2, 3, 4]) },
      { name: 'name with space.txt', data: 'spaced' },
    ])
    prefix = (await ingest(t, tenant, zip)).prefix
    fastPort = await contentApp(true, true)
    referencePort = await contentApp(false, false)
  })
  after(async () => {
    for (const app of apps) await app.close()
    await t.close()
  })

  const host = () => `${tenantLabel(tenantId)}.${BARE}`
  const token = (ttlSeconds = 3600, aud: string = tenantLabel(tenantId)) =>
    signToken(
      t.ctx.config.secretKey,
      'content',
      { p: prefix, sid: 'ses_fast', aud },
      new Date(clock.now().getTime() + ttlSeconds * 1000),
    )

  /** The same request to both apps, twice each (the first fills each app's cache). */
  async function both(target: string, options: Parameters<typeof rawRequest>[2] = {}) {
    const request = { host: host(), ...options }
    await rawRequest(fastPort, target, request)
    await rawRequest(referencePort, target, request)
    const before = reachedFastify
    const fast = await rawRequest(fastPort, target, request)
    const reached = reachedFastify - before
    const reference = await rawRequest(referencePort, target, request)
    return { fast, reference, reached }
  }

  test('a cached file comes back exactly as Fastify sends it, without reaching it', async () => {
    const tok = token()
    for (const path of [
      'index.html',
      'js/app.js',
      'data/blob.unknownext',
      'name%20with%20space.txt',
    ]) {
      const { fast, reference, reached } = await both(`/c/${tok}/${path}`)
      assert.equal(fast.status, 200, path)
      assert.equal(reached, 0, `${path} was answered in front of Fastify`)
      assert.deepEqual(comparable(fast), comparable(reference), path)
    }
    // The answer carries what every package file must.
    const { fast } = await both(`/c/${tok}/index.html`)
    assert.equal(fast.headers['content-type'], 'text/html')
    assert.equal(fast.headers['x-content-type-options'], 'nosniff')
    assert.equal(fast.headers['referrer-policy'], 'strict-origin-when-cross-origin')
    assert.equal(fast.headers['cross-origin-resource-policy'], 'same-origin')
    assert.match(fast.headers['cache-control'] ?? '', /^private, max-age=36\d\d, immutable$/)
    assert.ok(fast.headers.etag)
  })

  test('one range of bytes in memory comes back exactly as Fastify sends it', async () => {
    const tok = token()
    const cases: Array<[path: string, range: string, bytes: Buffer]> = [
      // A small file from the small-file cache.
      ['index.html', 'bytes=0-4', Buffer.from(PAGE).subarray(0, 5)],
      ['index.html', 'bytes=6-', Buffer.from(PAGE).subarray(6)],
      ['index.html', 'bytes=0-', Buffer.from(PAGE)],
      ['index.html', `bytes=${PAGE.length - 1}-${PAGE.length - 1}`, Buffer.from(PAGE.slice(-1))],
      ['index.html', 'bytes=10-999999', Buffer.from(PAGE).subarray(10)],
      // A "video" from its media blocks: inside one, a whole one, across two, the short last one.
      ['media/video.mp4', 'bytes=10-20', VIDEO.subarray(10, 21)],
      ['media/video.mp4', 'bytes=0-999', VIDEO.subarray(0, 1000)],
      ['media/video.mp4', 'bytes=1000-1999', VIDEO.subarray(1000, 2000)],
      ['media/video.mp4', 'bytes=999-1000', VIDEO.subarray(999, 1001)],
      ['media/video.mp4', 'bytes=2500-3999', VIDEO.subarray(2500, 4000)],
      ['media/video.mp4', 'bytes=10000-', VIDEO.subarray(10000)],
      ['media/video.mp4', 'bytes=9500-', VIDEO.subarray(9500)],
      ['media/video.mp4', 'bytes=10499-10499', VIDEO.subarray(10499)],
      ['media/video.mp4', 'bytes=10400-99999', VIDEO.subarray(10400)],
    ]
    for (const [path, range, bytes] of cases) {
      const name = `${path} ${range}`
      const { fast, reference, reached } = await both(`/c/${tok}/${path}`, { headers: { range } })
      assert.equal(fast.status, 206, name)
      assert.equal(reached, 0, `${name} was answered in front of Fastify`)
      assert.deepEqual(comparable(fast), comparable(reference), name)
      assert.deepEqual(fast.body, bytes, name)
    }
    const { fast } = await both(`/c/${tok}/media/video.mp4`, {
      headers: { range: 'bytes=999-1000' },
    })
    assert.equal(fast.headers['content-range'], `bytes 999-1000/${VIDEO.length}`)
    assert.equal(fast.headers['content-length'], '2')
    assert.equal(fast.headers['content-type'], 'video/mp4')
    assert.equal(fast.headers['accept-ranges'], 'bytes')
  })

  test('every other range request goes to Fastify, with its answer', async () => {
    const tok = token()
    const page = `/c/${tok}/index.html`
    const video = `/c/${tok}/media/video.mp4`
    await both(page)
    const etag = (await rawRequest(fastPort, page, { host: host() })).headers.etag ?? ''
    const cases: Array<[name: string, target: string, headers: Record<string, string>, number]> = [
      ['two ranges', page, { range: 'bytes=0-1,3-4' }, 200],
      ['a suffix range', page, { range: 'bytes=-5' }, 206],
      ['a suffix range of blocks', video, { range: 'bytes=-5' }, 206],
      ['a range past the end', page, { range: `bytes=${PAGE.length}-` }, 416],
      ['a range past the end of blocks', video, { range: 'bytes=20000-20010' }, 416],
      ['end before start', page, { range: 'bytes=5-2' }, 200],
      ['another unit', page, { range: 'items=0-4' }, 200],
      ['spaces', page, { range: 'bytes = 0-4' }, 206],
      ['upper case', page, { range: 'BYTES=0-4' }, 206],
      ['If-Range that matches', page, { range: 'bytes=0-4', 'if-range': etag }, 206],
      ['If-Range that does not', page, { range: 'bytes=0-4', 'if-range': '"old"' }, 200],
      ['If-None-Match and a range', page, { range: 'bytes=0-4', 'if-none-match': etag }, 304],
      ['If-Match that fails and a range', page, { range: 'bytes=0-4', 'if-match': '"x"' }, 412],
      ['more blocks than kept', video, { range: 'bytes=0-2999' }, 206],
      ['an open range over many blocks', video, { range: 'bytes=0-' }, 206],
    ]
    for (const [name, target, headers, status] of cases) {
      const { fast, reference, reached } = await both(target, { headers })
      assert.equal(fast.status, status, name)
      assert.ok(reached > 0, `${name} reached Fastify`)
      assert.deepEqual(comparable(fast), comparable(reference), name)
    }
  })

  test('a range whose blocks are not all in memory goes to Fastify, which reads them', async () => {
    const tok = token()
    const video = `/c/${tok}/media/video.mp4`
    // Block 6 only: a range over blocks 6 and 7 must not be half answered from memory.
    const head = await rawRequest(fastPort, video, {
      host: host(),
      headers: { range: 'bytes=6000-6999' },
    })
    assert.equal(head.status, 206)
    const before = reachedFastify
    const both67 = await rawRequest(fastPort, video, {
      host: host(),
      headers: { range: 'bytes=6500-7499' },
    })
    assert.equal(reachedFastify - before, 1)
    assert.equal(both67.status, 206)
    assert.deepEqual(both67.body, VIDEO.subarray(6500, 7500))
    // Now both are in memory.
    const again = await rawRequest(fastPort, video, {
      host: host(),
      headers: { range: 'bytes=6500-7499' },
    })
    assert.equal(reachedFastify - before, 1)
    assert.deepEqual(again.body, VIDEO.subarray(6500, 7500))
  })

  test('anything but a plain GET of a cached file goes to Fastify, with its answer', async () => {
    const tok = token()
    const target = `/c/${tok}/index.html`
    await both(target)
    const etag = (await rawRequest(fastPort, target, { host: host() })).headers.etag ?? ''
    const cases: Array<[string, Parameters<typeof rawRequest>[2], number]> = [
      ['HEAD', { method: 'HEAD' }, 200],
      ['If-None-Match', { headers: { 'if-none-match': etag } }, 304],
      ['If-Match that fails', { headers: { 'if-match': '"other"' } }, 412],
      ['another tenant host', { host: `${tenantLabel('someone-else')}.${BARE}` }, 403],
      ['the bare content host', { host: BARE }, 403],
    ]
    for (const [name, options, status] of cases) {
      const { fast, reference, reached } = await both(target, options)
      assert.equal(fast.status, status, name)
      assert.ok(reached > 0, `${name} reached Fastify`)
      assert.deepEqual(comparable(fast), comparable(reference), name)
    }
    for (const [name, path, status] of [
      ['a file not in the package', `/c/${tok}/missing.html`, 404],
      ['a bad signature', `/c/${tok.slice(0, -2)}xx/index.html`, 403],
      ['a token for another origin', `/c/${token(3600, 'tsomeoneelseentirely00')}/index.html`, 403],
      ['a traversal', `/c/${tok}/../index.html`, 404],
    ] as const) {
      const { fast, reference, reached } = await both(path)
      assert.equal(fast.status, status, name)
      assert.ok(reached > 0, `${name} reached Fastify`)
      assert.deepEqual(comparable(fast), comparable(reference), name)
    }
  })

  test('a token that expires while its files are cached is refused by Fastify', async () => {
    // Inside the cache's 60 s: the file is still in memory when the token runs out.
    const tok = token(30)
    const target = `/c/${tok}/js/app.js`
    assert.equal((await both(target)).fast.status, 200)
    clock.advance(31_000)
    const { fast, reference, reached } = await both(target)
    assert.equal(fast.status, 403)
    assert.ok(reached > 0)
    assert.deepEqual(comparable(fast), comparable(reference))
  })

  test('every fast answer is counted under the route, as Fastify counts it', async () => {
    const count = async () => {
      const text = await t.ctx.metrics.render()
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.includes('_count{') &&
            l.includes('route="/c/:token/*"') &&
            l.includes('origin="content"') &&
            l.includes('status_class="2xx"'),
        )
      return Number(line?.split(' ').pop() ?? 0)
    }
    const tok = token()
    await both(`/c/${tok}/index.html`)
    const before = await count()
    const { reached } = await both(`/c/${tok}/index.html`)
    assert.equal(reached, 0)
    // Two requests to the fast-path app (cached and fast), none counted by the reference app.
    assert.equal((await count()) - before, 2)
  })
})
