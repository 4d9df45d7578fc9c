import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { App } from '../../../src/app.ts'
import { SmallFileCache } from '../../../src/http/content/small-file.cache.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import {
  contentToken,
  ingest,
  recordedContentApp,
  uncachedContentApp,
  zipEntries,
} from './content.helper.ts'

const GOLF_ZIP = 'RuntimeBasicCalls_SCORM20043rdEdition.zip'
const CSS = 'shared/style.css'
const JPG = 'HavingFun/fun.jpg'

describeEachDatabase('content serving /c/{token}/{path}', (database) => {
  let t: TestApp
  let clock: ManualClock
  let prefix: string
  let token: string
  let files: Map<string, Buffer>
  let uncached: App
  const file = (path: string) => {
    const bytes = files.get(path)
    if (!bytes) throw new Error(`fixture has no ${path}`)
    return bytes
  }
  before(async () => {
    clock = new ManualClock(new Date())
    t = await createTestApp(database(), { clock })
    const zip = fixture('scorm', 'golf', GOLF_ZIP)
    files = await zipEntries(zip)
    prefix = (await ingest(t, await t.createTenant(), zip)).prefix
    token = contentToken(t, prefix, { ttlSeconds: 12 * 3600 })
    uncached = await uncachedContentApp(t)
  })
  after(async () => {
    await uncached.close()
    await t.close()
  })

  // Every behaviour holds whether small files come from the memory cache or the store.
  for (const variant of ['memory cache', 'store only'] as const) {
    describe(variant, () => {
      const app = () => (variant === 'memory cache' ? t.content : uncached)
      const get = (
        path: string,
        headers: Record<string, string> = {},
        method: 'GET' | 'HEAD' = 'GET',
      ) => app().inject({ method, url: `/c/${token}/${path}`, headers })

      test('files come back byte for byte with their type by extension and no charset', async () => {
        const expected: Record<string, string> = {
          'shared/launchpage.html': 'text/html',
          'shared/scormfunctions.js': 'text/javascript',
          [CSS]: 'text/css',
          [JPG]: 'image/jpeg',
          'shared/cclicense.png': 'image/png',
          'adlcp_v1p3.xsd': 'application/xml',
          'imsmanifest.xml': 'application/xml',
          'datatypes.dtd': 'application/xml-dtd',
        }
        for (const [path, type] of Object.entries(expected)) {
          const res = await get(path)
          assert.equal(res.statusCode, 200, path)
          assert.equal(res.headers['content-type'], type, path)
          assert.equal(res.headers['content-length'], String(file(path).length), path)
          assert.deepEqual(res.rawPayload, file(path), path)
        }
      })

      test('validators, caching and security headers on a file', async () => {
        const res = await get(CSS)
        assert.equal(res.headers['accept-ranges'], 'bytes')
        assert.match(String(res.headers.etag), /^"[^"]+"$/, 'a strong ETag')
        const lastModified = Date.parse(String(res.headers['last-modified']))
        assert.ok(
          Math.abs(lastModified - Date.now()) < 10 * 60_000,
          'Last-Modified is the upload time',
        )
        const cache = String(res.headers['cache-control'])
        const maxAge = Number(/max-age=(\d+)/.exec(cache)?.[1])
        assert.match(cache, /^private, /)
        assert.ok(
          maxAge > 11 * 3600 && maxAge <= 12 * 3600 + 1,
          `max-age follows the token: ${cache}`,
        )
        assert.equal(res.headers['x-content-type-options'], 'nosniff')
        assert.equal(res.headers['referrer-policy'], 'strict-origin-when-cross-origin')
        assert.equal(res.headers['cross-origin-resource-policy'], 'same-origin')
        assert.equal(
          res.headers['x-frame-options'],
          undefined,
          'the player must be able to frame it',
        )
        assert.equal(res.headers['content-security-policy'], undefined)
      })

      test('the ETag is stable and the same for GET, HEAD and ranges; files differ', async () => {
        const first = await get(CSS)
        const again = await get(CSS)
        const head = await get(CSS, {}, 'HEAD')
        const partial = await get(CSS, { range: 'bytes=0-9' })
        assert.equal(again.headers.etag, first.headers.etag)
        assert.equal(head.headers.etag, first.headers.etag)
        assert.equal(partial.headers.etag, first.headers.etag)
        assert.equal(again.headers['last-modified'], first.headers['last-modified'])
        assert.notEqual((await get(JPG)).headers.etag, first.headers.etag)
      })

      test('single ranges answer 206 with exactly those bytes', async () => {
        const bytes = file(JPG)
        const size = bytes.length
        const cases: Array<[string, number, number]> = [
          ['bytes=0-0', 0, 0],
          ['bytes=100-4195', 100, 4195],
          ['bytes=1000-', 1000, size - 1],
          ['bytes=-500', size - 500, size - 1],
          [`bytes=-${size + 10}`, 0, size - 1],
          [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
          ['BYTES = 5-9', 5, 9],
        ]
        for (const [range, start, end] of cases) {
          const res = await get(JPG, { range })
          assert.equal(res.statusCode, 206, range)
          assert.equal(res.headers['content-range'], `bytes ${start}-${end}/${size}`, range)
          assert.equal(res.headers['content-length'], String(end - start + 1), range)
          assert.equal(res.headers['content-type'], 'image/jpeg', range)
          assert.deepEqual(res.rawPayload, bytes.subarray(start, end + 1), range)
        }
      })

      test('unsatisfiable ranges answer 416 with the size', async () => {
        const size = file(JPG).length
        for (const range of [`bytes=${size}-`, `bytes=${size + 5}-${size + 9}`, 'bytes=-0']) {
          const res = await get(JPG, { range })
          assert.equal(res.statusCode, 416, range)
          assert.equal(res.headers['content-range'], `bytes */${size}`, range)
          assert.equal(res.json().error.code, 'range_not_satisfiable')
          assert.equal(res.headers['cache-control'], 'no-store')
        }
        const huge = await get(JPG, { range: 'bytes=99999999999999999999999-' })
        assert.equal(huge.statusCode, 416)
      })

      test('several ranges or a malformed Range header get the whole file (200)', async () => {
        for (const range of ['bytes=0-1,5-9', 'bytes=9-5', 'items=0-9', 'bytes=abc', 'bytes=-']) {
          const res = await get(CSS, { range })
          assert.equal(res.statusCode, 200, range)
          assert.equal(res.headers['content-range'], undefined, range)
          assert.deepEqual(res.rawPayload, file(CSS), range)
        }
      })

      test('HEAD gives the GET headers without a body and never opens the file', async () => {
        const { app, calls } = await recordedContentApp(t)
        try {
          const headers = { range: 'bytes=0-9' }
          const head = await app.inject({ method: 'HEAD', url: `/c/${token}/${JPG}`, headers })
          assert.equal(head.statusCode, 200, 'Range is defined for GET only')
          assert.equal(head.rawPayload.length, 0)
          assert.equal(head.headers['content-length'], String(file(JPG).length))
          assert.equal(head.headers['content-type'], 'image/jpeg')
          assert.equal(head.headers['accept-ranges'], 'bytes')
          assert.equal(head.headers['content-range'], undefined)
          assert.deepEqual(calls, [{ method: 'head', key: `${prefix}/${JPG}` }])
          const missing = await app.inject({ method: 'HEAD', url: `/c/${token}/nope.html` })
          assert.equal(missing.statusCode, 404)
        } finally {
          await app.close()
        }
      })

      test('If-None-Match and If-Modified-Since answer 304 with the validators', async () => {
        const { etag, 'last-modified': lastModified } = (await get(CSS)).headers
        const notModified: Array<Record<string, string>> = [
          { 'if-none-match': String(etag) },
          { 'if-none-match': `"other", W/${etag}` },
          { 'if-none-match': '*' },
          { 'if-modified-since': String(lastModified) },
          { 'if-modified-since': new Date(Date.now() + 60_000).toUTCString() },
        ]
        for (const headers of notModified) {
          for (const method of ['GET', 'HEAD'] as const) {
            const res = await get(CSS, headers, method)
            assert.equal(res.statusCode, 304, JSON.stringify({ method, headers }))
            assert.equal(res.rawPayload.length, 0)
            assert.equal(res.headers.etag, etag)
            assert.match(String(res.headers['cache-control']), /^private, max-age=\d+/)
            assert.equal(res.headers['x-content-type-options'], 'nosniff')
          }
        }
        const modified: Array<Record<string, string>> = [
          { 'if-none-match': '"something-else"' },
          { 'if-modified-since': 'Sun, 06 Nov 1994 08:49:37 GMT' },
          { 'if-modified-since': 'not a date' },
          // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
          { 'if-none-match': '"something-else"', 'if-modified-since': String(lastModified) },
        ]
        for (const headers of modified) {
          const res = await get(CSS, headers)
          assert.equal(res.statusCode, 200, JSON.stringify(headers))
          assert.deepEqual(res.rawPayload, file(CSS))
        }
      })

      test('If-Match and If-Unmodified-Since that fail answer 412', async () => {
        const { etag, 'last-modified': lastModified } = (await get(CSS)).headers
        const failed = await get(CSS, { 'if-match': '"stale"' })
        assert.equal(failed.statusCode, 412)
        assert.equal(failed.json().error.code, 'precondition_failed')
        assert.equal((await get(CSS, { 'if-match': `W/${etag}` })).statusCode, 412, 'strong only')
        const old = { 'if-unmodified-since': 'Sun, 06 Nov 1994 08:49:37 GMT' }
        assert.equal((await get(CSS, old)).statusCode, 412)
        assert.equal((await get(CSS, { 'if-match': String(etag) })).statusCode, 200)
        assert.equal((await get(CSS, { 'if-match': '*' })).statusCode, 200)
        const since = { 'if-unmodified-since': String(lastModified) }
        assert.equal((await get(CSS, since)).statusCode, 200)
      })

      test('If-Range keeps the range only while the validator still matches', async () => {
        const { etag, 'last-modified': lastModified } = (await get(JPG)).headers
        const range = 'bytes=10-19'
        const partial = [String(etag), String(lastModified)]
        for (const ifRange of partial) {
          const res = await get(JPG, { range, 'if-range': ifRange })
          assert.equal(res.statusCode, 206, ifRange)
          assert.deepEqual(res.rawPayload, file(JPG).subarray(10, 20))
        }
        const whole = ['"stale"', `W/${etag}`, 'Sun, 06 Nov 1994 08:49:37 GMT', 'garbage']
        for (const ifRange of whole) {
          const res = await get(JPG, { range, 'if-range': ifRange })
          assert.equal(res.statusCode, 200, ifRange)
          assert.deepEqual(res.rawPayload, file(JPG))
        }
      })

      test('percent-escapes are decoded once and the query string is ignored', async () => {
        assert.equal((await get('shared/style%2Ecss')).statusCode, 200)
        assert.equal((await get('shared%2Fstyle.css')).statusCode, 200)
        assert.equal((await get('shared/launchpage.html?x=1&y=%2e%2e/')).statusCode, 200)
        // `%252e` is the literal name `%2e`, which the package does not have.
        const twice = await get('shared%252Fstyle.css')
        assert.equal(twice.statusCode, 404)
      })

      test('directories, missing files and empty paths are 404 without a listing', async () => {
        const paths = [`/c/${token}/shared`, `/c/${token}/shared/`, `/c/${token}/`, `/c/${token}`]
        paths.push(`/c/${token}/nope.html`, `/c/${token}/shared/style.css/x`, `/c/${token}//shared`)
        for (const url of paths) {
          const res = await app().inject({ url })
          assert.equal(res.statusCode, 404, url)
          assert.equal(res.json().error.code, 'not_found', url)
          assert.equal(res.headers['x-content-type-options'], 'nosniff', url)
          assert.equal(res.headers['cache-control'], 'no-store', url)
          assert.doesNotMatch(res.body, /style\.css|launchpage/, url)
        }
      })

      test('forged, expired, foreign and other-purpose tokens are refused', async () => {
        const [payload = '', signature = ''] = token.split('.')
        const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`
        const otherPrefix = Buffer.from(
          JSON.stringify({ p: `${prefix.split('/')[0]}/live/packages/x/y`, sid: 's', exp: 9e9 }),
        ).toString('base64url')
        const refused: Record<string, string> = {
          'bad signature': `${payload}.${flipped}`,
          'claims swapped under the old signature': `${otherPrefix}.${signature}`,
          'launch token': contentToken(t, prefix, { purpose: 'launch' }),
          'runtime token': contentToken(t, prefix, { purpose: 'runtime' }),
          'another secret': contentToken(t, prefix, {
            secret: 'another-secret-another-secret-0123',
          }),
          garbage: 'not-a-token',
          'three parts': `${token}.x`,
        }
        for (const [name, bad] of Object.entries(refused)) {
          const res = await app().inject({ url: `/c/${bad}/${CSS}` })
          assert.equal(res.statusCode, 403, name)
          assert.equal(res.json().error.code, 'forbidden', name)
          assert.equal(res.headers['cache-control'], 'no-store', name)
          assert.equal(res.headers['referrer-policy'], 'strict-origin-when-cross-origin', name)
        }
        const shortLived = contentToken(t, prefix, { ttlSeconds: 60 })
        assert.equal((await app().inject({ url: `/c/${shortLived}/${CSS}` })).statusCode, 200)
        clock.advance(61_000)
        const expired = await app().inject({ url: `/c/${shortLived}/${CSS}` })
        assert.equal(expired.statusCode, 403)
        assert.equal(expired.json().error.details.reason, 'expired')
        assert.equal((await get(CSS)).statusCode, 200, 'the long-lived token still works')
      })

      test('other methods are not served', async () => {
        for (const method of ['POST', 'PUT', 'DELETE'] as const) {
          const res = await app().inject({ method, url: `/c/${token}/${CSS}` })
          assert.equal(res.statusCode, 404, method)
        }
      })
    })
  }

  test('small files are served from memory until the entry expires; large ones never', async () => {
    const cache = new SmallFileCache({ maxFileBytes: 20_000, ttlMs: 60_000 })
    const { app, calls } = await recordedContentApp(t, cache)
    const css = `${prefix}/${CSS}`
    const jpg = `${prefix}/${JPG}`
    const send = (path: string, headers: Record<string, string> = {}, method = 'GET' as const) =>
      app.inject({ method, url: `/c/${token}/${path}`, headers })
    try {
      const ranged = await send(CSS, { range: 'bytes=0-9' })
      assert.equal(ranged.statusCode, 206)
      assert.deepEqual(calls, [{ method: 'get', key: css }], 'a range alone does not fill')
      const first = await send(CSS)
      assert.deepEqual(first.rawPayload, file(CSS))
      assert.equal(calls.length, 2)
      const { etag } = first.headers
      const again = [
        await send(CSS),
        await app.inject({ method: 'HEAD', url: `/c/${token}/${CSS}` }),
        await send(CSS, { range: 'bytes=-20' }),
        await send(CSS, { 'if-none-match': String(etag) }),
      ]
      assert.deepEqual(
        again.map((r) => r.statusCode),
        [200, 200, 206, 304],
      )
      assert.deepEqual(again[2]?.rawPayload, file(CSS).subarray(-20))
      assert.equal(again[0]?.headers.etag, etag)
      assert.equal(calls.length, 2, 'all from memory')

      assert.equal(file(JPG).length > cache.maxFileBytes, true)
      for (let i = 0; i < 2; i++) assert.deepEqual((await send(JPG)).rawPayload, file(JPG))
      assert.deepEqual(calls.slice(2), [
        { method: 'get', key: jpg },
        { method: 'get', key: jpg },
      ])
      assert.equal(cache.size, 1)

      clock.advance(60_001)
      assert.deepEqual((await send(CSS)).rawPayload, file(CSS))
      assert.deepEqual(calls.at(-1), { method: 'get', key: css }, 'expired, read again')
    } finally {
      await app.close()
    }
  })

  test('ranges of large files come from blocks kept in memory; long and open-ended ones stream', async () => {
    const blocks = new SmallFileCache({ maxFileBytes: 4096, maxTotalBytes: 1024 * 1024 })
    const small = new SmallFileCache({ maxFileBytes: 1024 })
    const { app, calls } = await recordedContentApp(t, small, blocks)
    const jpg = file(JPG)
    assert.ok(jpg.length > 3 * 4096)
    const range = async (spec: string) => {
      const res = await app.inject({
        url: `/c/${token}/${JPG}`,
        headers: { range: `bytes=${spec}` },
      })
      return { res, reads: calls.splice(0).length }
    }
    try {
      const whole = await app.inject({ url: `/c/${token}/${JPG}` })
      calls.splice(0)
      const cases = [
        { spec: '0-99', from: 0, to: 99, reads: 1 }, // block 0 read
        { spec: '100-4095', from: 100, to: 4095, reads: 0 }, // inside block 0
        { spec: '4000-4199', from: 4000, to: 4199, reads: 1 }, // block 1 read, 0 from memory
        { spec: '4100-8000', from: 4100, to: 8000, reads: 0 },
        { spec: '100-9000', from: 100, to: 9000, reads: 1 }, // three blocks: streamed
        { spec: '100-', from: 100, to: jpg.length - 1, reads: 1 }, // open-ended: streamed
        {
          spec: `${jpg.length - 10}-${jpg.length + 50}`,
          from: jpg.length - 10,
          to: jpg.length - 1,
          reads: 1,
        },
      ]
      for (const c of cases) {
        const { res, reads } = await range(c.spec)
        assert.equal(res.statusCode, 206, c.spec)
        assert.deepEqual(res.rawPayload, jpg.subarray(c.from, c.to + 1), c.spec)
        assert.equal(res.headers['content-range'], `bytes ${c.from}-${c.to}/${jpg.length}`, c.spec)
        assert.equal(res.headers['content-length'], String(c.to - c.from + 1), c.spec)
        assert.equal(res.headers.etag, whole.headers.etag, c.spec)
        assert.equal(res.headers['content-type'], whole.headers['content-type'], c.spec)
        assert.equal(reads, c.reads, `${c.spec}: store reads`)
      }
      const beyond = await range(`${jpg.length}-`)
      assert.equal(beyond.res.statusCode, 416)
      assert.equal(beyond.res.headers['content-range'], `bytes */${jpg.length}`)
      const missing = await app.inject({
        url: `/c/${token}/HavingFun/nope.mp4`,
        headers: { range: 'bytes=0-9' },
      })
      assert.equal(missing.statusCode, 404)
    } finally {
      await app.close()
    }
  })
})
