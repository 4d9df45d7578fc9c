import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { parseAnswer, rawRequest } from './raw-http.helper.ts'

/** A chunked PUT whose body is `body` (one chunk, or none when empty), with `Connection: close`. */
function chunkedPut(path: string, body: Buffer): string {
  const chunk = body.length ? `${body.length.toString(16)}\r\n${body.toString('latin1')}\r\n` : ''
  return (
    `PUT ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/zip\r\n` +
    `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk}0\r\n\r\n`
  )
}

const status = (answer: string) => parseAnswer(answer).status
const errorOf = (answer: string) =>
  JSON.parse(parseAnswer(answer).body) as { error: { code: string } }

describeEachDatabase('a presigned PUT with a chunked body of the wrong length', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let port: number
  // A real process would exit on these; the test runner only reports them, so collect them.
  const crashes: unknown[] = []
  const onCrash = (err: unknown) => crashes.push(err)
  before(async () => {
    process.on('uncaughtException', onCrash)
    t = await createTestApp(database())
    tenant = await t.createTenant()
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    port = (t.app.server.address() as { port: number }).port
  })
  after(async () => {
    process.off('uncaughtException', onCrash)
    await t.close()
  })

  async function assertStillServing(): Promise<void> {
    const health = await fetch(`http://127.0.0.1:${port}/healthz`)
    assert.equal(health.status, 200)
    // Let a late stream error surface before checking.
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(crashes, [])
  }

  async function uploadPath(): Promise<string> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers: bearer(tenant.testKey),
      payload: { filename: 'course.zip', file_size: 5000 },
    })
    assert.equal(res.statusCode, 200, res.body)
    return new URL(res.json().presigned_url).pathname
  }

  for (const [name, size] of [
    ['shorter', 1000],
    ['empty', 0],
    ['longer', 9000],
  ] as const) {
    test(`${name} than declared: 400 with the error body, and the process keeps serving`, async () => {
      const answer = await rawRequest(port, chunkedPut(await uploadPath(), Buffer.alloc(size, 1)))
      assert.equal(status(answer), 400, answer)
      assert.equal(errorOf(answer).error.code, 'invalid_request')
      await assertStillServing()
    })
  }

  test('a client that hangs up mid-body does not take the process down', async () => {
    const path = await uploadPath()
    const head =
      `PUT ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `1000\r\n${'x'.repeat(100)}`
    await rawRequest(port, head, true)
    await assertStillServing()
  })

  test('the exact length chunked is stored', async () => {
    const path = await uploadPath()
    const answer = await rawRequest(port, chunkedPut(path, Buffer.alloc(5000, 2)))
    assert.equal(status(answer), 200, answer)
  })
})
