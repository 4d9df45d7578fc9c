import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, test } from 'node:test'
import { request } from 'undici'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { parseAnswer } from './raw-http.helper.ts'

const TWO_MIB = 2 * 2 ** 20

/**
 * Sends the head of a request, waits for the server's answer, and only then writes the body the
 * head announced: the order in which a slow client meets an answer given before its body was read.
 * Resolves with the answer and the error (if any) the body's write met.
 */
function answerBeforeBody(
  port: number,
  head: string,
  body: Buffer,
): Promise<{ answer: string; writeError: string | null }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    let answer = ''
    let writeError: string | null = null
    let bodySent = false
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      answer += chunk
      if (bodySent || !answer.includes('\r\n\r\n')) return
      bodySent = true
      // Past the socket buffers: a server that closed without reading resets the connection.
      socket.write(body, (err) => {
        if (err) writeError = (err as NodeJS.ErrnoException).code ?? err.message
      })
    })
    socket.on('error', (err: NodeJS.ErrnoException) => {
      writeError ??= err.code ?? err.message
    })
    socket.on('close', () => resolve({ answer, writeError }))
    socket.write(head)
  })
}

describeEachDatabase('an answer given before the body was read reaches the client', (database) => {
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

  test('a body over the limit gets 413 and the client can finish writing it', async () => {
    const body = Buffer.alloc(TWO_MIB * 2, 'x')
    const head =
      `POST /api/v1/quick-publish HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Authorization: ${bearer(tenant.testKey).authorization}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    const { answer, writeError } = await answerBeforeBody(port, head, body)
    const parsed = parseAnswer(answer)
    assert.equal(parsed.status, 413, answer.slice(0, 300))
    assert.equal(parsed.headers.connection, 'close')
    assert.equal(
      (JSON.parse(parsed.body) as { error: { code: string } }).error.code,
      'payload_too_large',
    )
    assert.equal(writeError, null, 'the body was written without a reset')
  })

  test('parallel clients sending oversized JSON all read the 413, none a reset', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(TWO_MIB), slides: [] })
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await request(`http://127.0.0.1:${port}/api/v1/quick-publish`, {
          method: 'POST',
          headers: { ...bearer(tenant.testKey), 'content-type': 'application/json' },
          body: big,
        })
        const text = await res.body.text()
        return {
          status: res.statusCode,
          code: (JSON.parse(text) as { error: { code: string } }).error.code,
        }
      }),
    )
    for (const answer of answers)
      assert.deepEqual(answer, { status: 413, code: 'payload_too_large' })
  })

  test('the server keeps answering on new connections afterwards', async () => {
    const res = await request(`http://127.0.0.1:${port}/healthz`)
    assert.equal(res.statusCode, 200)
    await res.body.dump()
  })
})
