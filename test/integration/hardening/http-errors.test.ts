import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { parseAnswer, rawRequest } from './raw-http.helper.ts'

function assertErrorShape(body: string, status: number): { code: string; message: string } {
  const parsed = JSON.parse(body) as { error: { code: string; message: string } }
  assert.equal(typeof parsed.error.code, 'string', body)
  assert.equal(typeof parsed.error.message, 'string', body)
  assert.ok(status >= 400 && status < 500, `status ${status}: ${body}`)
  return parsed.error
}

describeEachDatabase(
  'the HTTP layer answers malformed requests with a 4xx error body',
  (database) => {
    let t: TestApp
    let tenant: TestTenant
    let port: number
    before(async () => {
      t = await createTestApp(database())
      tenant = await t.createTenant()
      await t.app.listen({ host: '127.0.0.1', port: 0 })
      port = (t.app.server.address() as { port: number }).port
    })
    after(async () => {
      await t.close()
    })

    test('malformed multipart (no boundary, garbage, a truncated part) is a 400', async () => {
      const part =
        '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nPK'
      const cases = [
        { type: 'multipart/form-data', payload: 'abc' },
        { type: 'multipart/form-data; boundary=xyz', payload: 'garbage garbage' },
        { type: 'multipart/form-data; boundary=xyz', payload: part },
      ]
      for (const { type, payload } of cases) {
        for (const url of ['/api/v1/packages/upload', '/api/v1/conversions']) {
          const res = await t.app.inject({
            method: 'POST',
            url,
            headers: { ...bearer(tenant.testKey), 'content-type': type },
            payload,
          })
          assert.equal(res.statusCode, 400, `${url} ${type}: ${res.body}`)
          assert.equal(assertErrorShape(res.body, 400).code, 'invalid_request')
        }
      }
    })

    test("Node's parser errors (tab, NUL, a 70 KB path) get the error body over real HTTP", async () => {
      const cases: Array<[string, number]> = [
        [`GET /api/v1/packages/a\tb HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
        [`GET /api/v1/packages/a\0b HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
        [`GET /api/v1/packages/${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
        [
          `POST /api/v1/packages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
          400,
        ],
      ]
      for (const [request, expected] of cases) {
        const answer = parseAnswer(await rawRequest(port, request))
        assert.equal(answer.status, expected, request.slice(0, 60))
        assertErrorShape(answer.body, answer.status)
      }
      const health = await fetch(`http://127.0.0.1:${port}/healthz`)
      assert.equal(health.status, 200)
    })

    test('bad JSON and an over-long path parameter get the error body', async () => {
      const bad = await fetch(`http://127.0.0.1:${port}/api/v1/quick-publish`, {
        method: 'POST',
        headers: { ...bearer(tenant.testKey), 'content-type': 'application/json' },
        body: '{"title": ',
      })
      assert.equal(bad.status, 400)
      assertErrorShape(await bad.text(), 400)
      const long = await fetch(`http://127.0.0.1:${port}/api/v1/packages/${'p'.repeat(5000)}`, {
        headers: bearer(tenant.testKey),
      })
      assertErrorShape(await long.text(), long.status)
    })

    test('values the databases cannot take are a 400, not a 500 (found by the fuzz test)', async () => {
      const cases = [
        '/api/v1/packages/%00',
        '/api/v1/webhooks/a%00b',
        '/api/v1/packages?limit=1e309',
        '/api/v1/webhooks?limit=1e309',
        '/api/v1/sessions?package_id=%00',
      ]
      for (const url of cases) {
        const res = await t.app.inject({ url, headers: bearer(tenant.testKey) })
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
        assertErrorShape(res.body, 400)
      }
      const nulInBody = await t.app.inject({
        method: 'POST',
        url: '/api/v1/quick-publish',
        headers: bearer(tenant.testKey),
        payload: { title: 'a\u0000b', slides: [{ title: 'a', content: 'b' }] },
      })
      assert.equal(nulInBody.statusCode, 400, nulInBody.body)
    })

    test('JSON bodies are not coerced: a wrong type is a 400 naming the field', async () => {
      const cases: Array<[string, unknown, string]> = [
        ['/api/v1/quick-publish', { title: 1, slides: [{ title: 'a', content: 'b' }] }, '/title'],
        ['/api/v1/packages/upload-url', { filename: 'a.zip', file_size: '5000' }, '/file_size'],
        ['/api/v1/packages/pkg_x/launch', { user_id: 42 }, '/user_id'],
        [
          '/api/v1/dispatches',
          { packageId: 'pkg_x', name: 'n', licenseLimit: '5' },
          '/licenseLimit',
        ],
      ]
      for (const [url, payload, field] of cases) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: bearer(tenant.testKey),
          payload: payload as object,
        })
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`)
        assert.ok(res.body.includes(field), `${url} names ${field}: ${res.body}`)
      }
      // Query strings are text: numbers there are still read as numbers.
      const list = await t.app.inject({
        url: '/api/v1/packages?limit=5',
        headers: bearer(tenant.testKey),
      })
      assert.equal(list.statusCode, 200, list.body)
    })

    test('security headers: nosniff and Referrer-Policy everywhere, CSP on HTML', async () => {
      for (const url of ['/healthz', '/api/v1/packages', '/no/such/path']) {
        const res = await t.app.inject({ url })
        assert.equal(res.headers['x-content-type-options'], 'nosniff', url)
        assert.equal(res.headers['referrer-policy'], 'no-referrer', url)
      }
      const docs = await t.app.inject({ url: '/api/docs/' })
      assert.equal(docs.statusCode, 200)
      assert.match(String(docs.headers['content-type']), /text\/html/)
      assert.match(String(docs.headers['content-security-policy']), /frame-ancestors 'none'/)
      const content = await t.content.inject({ url: '/no/such/path' })
      assert.equal(content.headers['x-content-type-options'], 'nosniff')
    })

    test('a 404 for an unknown path is JSON and never echoes markup or a token', async () => {
      const res = await t.app.inject({
        url: '/uploads/secret-token-value/<script>alert(1)</script>',
        headers: { accept: 'text/html' },
      })
      assert.equal(res.statusCode, 404)
      assert.match(String(res.headers['content-type']), /^application\/json/)
      assert.ok(!res.body.includes('<script>'), res.body)
      assert.ok(!res.body.includes('secret-token-value'), res.body)
      assertErrorShape(res.body, 404)
    })
  },
)
