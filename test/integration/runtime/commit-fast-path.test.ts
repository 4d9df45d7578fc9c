/**
 * Runtime commits are answered in front of Fastify (src/http/runtime/commit-fast-path.ts). Its
 * answers must be the route's, byte for byte, for every outcome: the same request goes to two
 * content apps on one context, one with the fast path and one without, each on its own session
 * with the same history, and the status line, every header but Date, the body and the metrics
 * recorded must match. Requests the fast path leaves alone must still reach Fastify.
 */
import assert from 'node:assert/strict'
import { tracingChannel } from 'node:diagnostics_channel'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import pino from 'pino'
import { type App, buildContentApp } from '../../../src/app.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'

const HOST = '127.0.0.1:18081'
const ROUTE = 'route="/runtime/sessions/:sessionId/commits"'

interface Exchange {
  /** The status line and every header line but Date, in the order sent. */
  head: string[]
  body: string
  /** The server closed the connection after the answer. */
  closed: boolean
}

/**
 * One request on its own keep-alive connection, written as given; the answer is read by its
 * Content-Length, then the connection is watched briefly to see whether the server closes it.
 */
function exchange(port: number, head: string, body: Buffer | string = ''): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let data = Buffer.alloc(0)
    let answer: Omit<Exchange, 'closed'> | undefined
    let closed = false
    const finish = () => {
      if (!answer) return reject(new Error(`no complete answer: ${data.toString('latin1')}`))
      socket.destroy()
      resolve({ ...answer, closed })
    }
    socket.on('connect', () => {
      socket.write(head, 'latin1')
      // A body the server refuses early may be cut off; the answer is what is compared.
      socket.write(body, () => {})
    })
    socket.on('error', () => {})
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk])
      if (answer) return
      const split = data.indexOf('\r\n\r\n')
      if (split < 0) return
      const lines = data.subarray(0, split).toString('latin1').split('\r\n')
      const length = Number(
        lines.find((l) => l.toLowerCase().startsWith('content-length:'))?.split(':')[1] ?? 0,
      )
      if (data.length < split + 4 + length) return
      answer = {
        head: lines.filter((l) => !l.toLowerCase().startsWith('date:')),
        body: data.subarray(split + 4, split + 4 + length).toString('utf8'),
      }
      setTimeout(finish, 150)
    })
    socket.on('end', () => {
      closed = true
    })
    socket.on('close', () => {
      closed = true
      if (answer) finish()
    })
  })
}

function post(
  sessionId: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): { head: string; body: string | Buffer } {
  const all = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  }
  const lines = Object.entries(all)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')
  return {
    head: `POST /runtime/sessions/${sessionId}/commits HTTP/1.1\r\nHost: ${HOST}\r\n${lines}\r\n`,
    body,
  }
}

/** The request with its target changed (the first `from` in the request line replaced). */
function retarget(request: { head: string; body: string | Buffer }, from: string, to: string) {
  return { ...request, head: request.head.replace(from, to) }
}

const statusOf = (e: Exchange) => Number(e.head[0]?.split(' ')[1])

interface Side {
  learner: string
  port: number
  sessionId: string
  token: string
  deliveryId: string
}

describeEachDatabase(
  'runtime commit fast path: the route’s answers without the framework',
  (database) => {
    let t: TestApp
    let reference: App
    let fast: Side
    let slow: Side
    /** Route handlers Fastify ran (the commit route's, once a request reached it). */
    let handled = 0
    const handlerChannel = tracingChannel('fastify.request.handler')
    const onStart = () => {
      handled++
    }
    const subscribers = {
      start: onStart,
      end() {},
      asyncStart() {},
      asyncEnd() {},
      error() {},
    }

    async function side(app: App, learner: string, packageId: string, key: string): Promise<Side> {
      const { launch_url } = await launch(t, key, packageId, learner)
      const player = await startPlayer(t, launch_url)
      const { delivery } = await player.deliver(player.started.current_item_id)
      return {
        learner,
        port: (app.server.address() as AddressInfo).port,
        sessionId: player.sessionId,
        token: player.started.runtime_token,
        deliveryId: delivery.delivery_id,
      }
    }

    /** The commit route's metric lines: request counts by status class, commits by outcome. */
    async function counts(): Promise<Map<string, number>> {
      const text = await t.ctx.metrics.render()
      const out = new Map<string, number>()
      for (const line of text.split('\n')) {
        const isRequest =
          line.startsWith('courseport_http_request_duration_seconds_count') && line.includes(ROUTE)
        if (!isRequest && !line.startsWith('courseport_runtime_commits_total{')) continue
        const at = line.lastIndexOf(' ')
        out.set(line.slice(0, at), Number(line.slice(at + 1)))
      }
      return out
    }

    function added(before: Map<string, number>, now: Map<string, number>) {
      return [...now]
        .filter(([k, v]) => v !== (before.get(k) ?? 0))
        .map(([k, v]) => [k, v - (before.get(k) ?? 0)])
    }

    type Build = (s: Side) => { head: string; body: string | Buffer }

    /**
     * Sends `build(side)` to the fast-path app, then to the reference, and checks the answers
     * and the metrics each recorded are the same. Returns the fast side's answer and whether
     * Fastify's route handler ran for it.
     */
    async function same(build: Build, label: string) {
      const m0 = await counts()
      const h0 = handled
      const a = build(fast)
      const fastAnswer = await exchange(fast.port, a.head, a.body)
      const reachedHandler = handled > h0
      const m1 = await counts()
      const b = build(slow)
      const slowAnswer = await exchange(slow.port, b.head, b.body)
      const m2 = await counts()
      const normal = (e: Exchange, s: Side) => ({
        ...e,
        body: e.body
          .replaceAll(s.sessionId, 'SESSION')
          .replaceAll(s.deliveryId, 'DELIVERY')
          .replaceAll(s.learner, 'LEARNER'),
      })
      assert.deepEqual(normal(fastAnswer, fast), normal(slowAnswer, slow), label)
      assert.deepEqual(added(m0, m1), added(m1, m2), `${label}: metrics`)
      return { answer: fastAnswer, reachedHandler }
    }

    const delta = (seq: number, fromSeq: number, extra: Record<string, unknown> = {}) => ({
      seq,
      fromSeq,
      final: false,
      values: { 'cmi.core.lesson_location': `page-${seq}`, 'cmi.suspend_data': `s${seq}` },
      ...extra,
    })
    const json = (s: Side, body: unknown, headers: Record<string, string> = {}) =>
      post(s.sessionId, JSON.stringify(body), { authorization: `Bearer ${s.token}`, ...headers })

    before(async () => {
      // A stopped clock: both sessions' `updated_at` are the same instant.
      t = await createTestApp(database(), { clock: new ManualClock(new Date()) })
      const tenant = await t.createTenant('growth')
      const golf = await uploadGolf(t, tenant.testKey, 'singlescobasic.zip')
      await t.content.listen({ host: '127.0.0.1', port: 0 })
      reference = await buildContentApp(t.ctx, { runtimeFastPath: false })
      await reference.listen({ host: '127.0.0.1', port: 0 })
      fast = await side(t.content, 'fast@example.com', golf, tenant.testKey)
      slow = await side(reference, 'slow@example.com', golf, tenant.testKey)
      handlerChannel.subscribe(subscribers)
    })
    after(async () => {
      handlerChannel.unsubscribe(subscribers)
      await reference.close()
      await t.close()
    })

    test('an applied commit, its duplicate and a sendBeacon commit: the same answers, without Fastify', async () => {
      const first = await same(
        (s) => json(s, { delivery_id: s.deliveryId, delta: delta(1, 0) }),
        'applied',
      )
      assert.equal(first.answer.head[0], 'HTTP/1.1 200 OK')
      assert.equal(JSON.parse(first.answer.body).applied, true)
      assert.equal(first.reachedHandler, false, 'the fast path answered')
      assert.equal(first.answer.closed, false)

      const again = await same(
        (s) => json(s, { delivery_id: s.deliveryId, delta: delta(1, 0) }),
        'duplicate',
      )
      assert.equal(JSON.parse(again.answer.body).applied, false)
      assert.equal(again.reachedHandler, false)

      for (const type of [
        'text/plain;charset=UTF-8',
        'text/plain',
        'application/json; charset=utf-8',
      ]) {
        const seq = type === 'text/plain' ? 3 : type.startsWith('text') ? 2 : 4
        const beacon = await same(
          (s) =>
            post(
              s.sessionId,
              JSON.stringify({
                token: s.token,
                delivery_id: s.deliveryId,
                delta: delta(seq, seq - 1),
              }),
              { 'content-type': type },
            ),
          type,
        )
        assert.equal(JSON.parse(beacon.answer.body).applied, true, type)
        assert.equal(beacon.reachedHandler, false, type)
      }
    })

    test('every refusal the route gives is given alike: conflicts, tokens, bodies, sessions', async () => {
      const cases: Array<[string, Build, number]> = [
        ['sequence_gap', (s) => json(s, { delivery_id: s.deliveryId, delta: delta(9, 7) }), 409],
        [
          'sequence_jump',
          (s) => json(s, { delivery_id: s.deliveryId, delta: delta(5000, 4) }),
          409,
        ],
        [
          'no token',
          (s) => json(s, { delivery_id: s.deliveryId, delta: delta(5, 4) }, { authorization: '' }),
          401,
        ],
        [
          'bad token',
          (s) =>
            json(
              s,
              { delivery_id: s.deliveryId, delta: delta(5, 4) },
              { authorization: 'Bearer nope' },
            ),
          401,
        ],
        [
          "another session's token",
          (s) =>
            json(
              s,
              { delivery_id: s.deliveryId, delta: delta(5, 4) },
              { authorization: `Bearer ${(s === fast ? slow : fast).token}` },
            ),
          401,
        ],
        [
          'unknown delivery',
          (s) => json(s, { delivery_id: 'scd_unknown', delta: delta(5, 4) }),
          404,
        ],
        ['no delta', (s) => json(s, { delivery_id: s.deliveryId }), 400],
        [
          'not an object',
          (s) => post(s.sessionId, '"text"', { authorization: `Bearer ${s.token}` }),
          400,
        ],
        ['an array', (s) => post(s.sessionId, '[1]', { authorization: `Bearer ${s.token}` }), 400],
        [
          'unknown session',
          (s) =>
            retarget(
              json(s, { delivery_id: s.deliveryId, delta: delta(5, 4) }),
              s.sessionId,
              'ses_unknown',
            ),
          401,
        ],
      ]
      for (const [label, build, status] of cases) {
        const { answer, reachedHandler } = await same(build, label)
        assert.equal(statusOf(answer), status, `${label}: ${answer.body}`)
        assert.equal(reachedHandler, false, `${label}: the fast path answered`)
        assert.equal(answer.closed, false, label)
      }
    })

    test('bodies that do not parse: the same 400 and a closed connection', async () => {
      const cases: Array<[string, Build]> = [
        [
          'bad JSON',
          (s) => post(s.sessionId, '{"delivery_id": ', { authorization: `Bearer ${s.token}` }),
        ],
        [
          'bad beacon',
          (s) => post(s.sessionId, 'token=x', { 'content-type': 'text/plain;charset=UTF-8' }),
        ],
        [
          'prototype poisoning',
          (s) =>
            post(s.sessionId, '{"__proto__": {"x": 1}}', { authorization: `Bearer ${s.token}` }),
        ],
      ]
      for (const [label, build] of cases) {
        const { answer } = await same(build, label)
        assert.equal(answer.head[0], 'HTTP/1.1 400 Bad Request', label)
        assert.ok(answer.head.includes('connection: close'), label)
        assert.equal(answer.closed, true, label)
      }
    })

    test('what the fast path leaves to Fastify is still answered by it, alike', async () => {
      const big = Buffer.alloc(2 * 1024 * 1024 + 1, 0x20)
      const cases: Array<[string, Build, number]> = [
        [
          'over the body limit',
          (s) => post(s.sessionId, big, { authorization: `Bearer ${s.token}` }),
          413,
        ],
        [
          'empty JSON body',
          (s) => post(s.sessionId, '', { authorization: `Bearer ${s.token}` }),
          400,
        ],
        [
          'another media type',
          (s) => post(s.sessionId, '{}', { 'content-type': 'application/xml' }),
          415,
        ],
        [
          'a chunked body',
          (s) => ({
            head: `POST /runtime/sessions/${s.sessionId}/commits HTTP/1.1\r\nHost: ${HOST}\r\ncontent-type: application/json\r\nauthorization: Bearer ${s.token}\r\ntransfer-encoding: chunked\r\n\r\n`,
            body: `3\r\n[1]\r\n0\r\n\r\n`,
          }),
          400,
        ],
      ]
      for (const [label, build, status] of cases) {
        const { answer } = await same(build, label)
        assert.equal(statusOf(answer), status, `${label}: ${answer.body}`)
      }
      const overLimit = await exchange(fast.port, post(fast.sessionId, big).head, big)
      assert.equal(overLimit.head[0], 'HTTP/1.1 413 Payload Too Large')
      // Fastify's answer to a commit with a query: the route, applied.
      const queried = await same(
        (s) =>
          retarget(
            json(s, { delivery_id: s.deliveryId, delta: delta(5, 4) }),
            '/commits ',
            '/commits?x=1 ',
          ),
        'query, applied',
      )
      assert.equal(JSON.parse(queried.answer.body).applied, true)
      assert.equal(queried.reachedHandler, true)
    })

    test('a failing database: the same 5xx, quoting the same request id', async () => {
      // Last in the suite: every commit from here on fails in the database.
      await sql`alter table sco_values rename to sco_values_gone`.execute(t.ctx.db.kysely)
      try {
        const { answer } = await same(
          (s) =>
            json(
              s,
              {
                delivery_id: s.deliveryId,
                delta: delta(6, 5, { values: { 'cmi.core.lesson_location': 'x' } }),
              },
              { 'x-request-id': 'req-fast-path-test' },
            ),
          'database failure',
        )
        assert.equal(statusOf(answer), 500, answer.body)
        assert.match(answer.body, /req-fast-path-test/)
      } finally {
        await sql`alter table sco_values_gone rename to sco_values`.execute(t.ctx.db.kysely)
      }
    })

    test('at LOG_LEVEL=info commits still take the fast path, and neither path logs them', async () => {
      const lines: string[] = []
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) })
      const logged = await buildContentApp(t.ctx, { loggerInstance: logger })
      await logged.listen({ host: '127.0.0.1', port: 0 })
      try {
        const port = (logged.server.address() as AddressInfo).port
        const h0 = handled
        const commit = json(fast, { delivery_id: fast.deliveryId, delta: delta(6, 5) })
        const applied = await exchange(port, commit.head, commit.body)
        assert.equal(JSON.parse(applied.body).applied, true, applied.body)
        assert.equal(handled, h0, 'the fast path answered')
        // The same commit again, chunked: Fastify's route answers it (a duplicate) at `warn`.
        const chunked = `POST /runtime/sessions/${fast.sessionId}/commits HTTP/1.1\r\nHost: ${HOST}\r\ncontent-type: application/json\r\nauthorization: Bearer ${fast.token}\r\ntransfer-encoding: chunked\r\n\r\n`
        const body = JSON.stringify({ delivery_id: fast.deliveryId, delta: delta(6, 5) })
        const again = await exchange(
          port,
          chunked,
          `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
        )
        assert.equal(JSON.parse(again.body).applied, false, again.body)
        assert.equal(handled, h0 + 1, 'Fastify answered')
        assert.deepEqual(
          lines.filter((line) => line.includes('/commits')),
          [],
        )
        // The logger does write request lines for the other runtime routes.
        const start = retarget(post(fast.sessionId, '{}'), '/commits ', '/start ')
        await exchange(port, start.head, start.body)
        assert.ok(
          lines.some((line) => line.includes(`/runtime/sessions/${fast.sessionId}/start`)),
          lines.join(''),
        )
      } finally {
        await logged.close()
      }
    })
  },
)
