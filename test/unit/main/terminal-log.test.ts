import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { processLogger } from '../../../src/main/terminal-log.ts'

/** A stand-in for stdout that says whether it is a terminal and keeps what was written. */
function output(isTTY: boolean) {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk))
      done()
    },
  }) as unknown as NodeJS.WriteStream
  Object.assign(stream, { isTTY })
  return { stream, text: () => chunks.join('') }
}

test('on a terminal: one short line per request, no successful health checks, fields as key=value', async () => {
  const out = output(true)
  const log = processLogger('info', out.stream)
  const request = log.child({ reqId: 'r1' })
  request.info({ req: { method: 'GET', url: '/api/v1/packages' } }, 'incoming request')
  request.info({ res: { statusCode: 200 }, responseTime: 4.2 }, 'request completed')
  const health = log.child({ reqId: 'r2' })
  health.info({ req: { method: 'GET', url: '/healthz' } }, 'incoming request')
  health.info({ res: { statusCode: 200 }, responseTime: 1 }, 'request completed')
  log.warn({ api: 'http://localhost:8080' }, 'courseport is serving')
  await new Promise((resolve) => setImmediate(resolve))
  const lines = out.text().trimEnd().split('\n')
  assert.equal(lines.length, 2, out.text())
  assert.match(lines[0] as string, /^\d\d:\d\d:\d\d INFO {2}GET \/api\/v1\/packages 200 4 ms$/)
  assert.match(lines[1] as string, /WARN .* courseport is serving api=http:\/\/localhost:8080$/)
})

test('not on a terminal: pino JSON lines, both request lines kept', async () => {
  const out = output(false)
  const log = processLogger('info', out.stream).child({ reqId: 'r1' })
  log.info({ req: { method: 'GET', url: '/healthz' } }, 'incoming request')
  log.info({ res: { statusCode: 200 }, responseTime: 1 }, 'request completed')
  await new Promise((resolve) => setImmediate(resolve))
  const lines = out
    .text()
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.reqId]),
    [
      [30, 'incoming request', 'r1'],
      [30, 'request completed', 'r1'],
    ],
  )
})
