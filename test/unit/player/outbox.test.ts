import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type Delivery, openDelivery } from '../../../src/browser/player/delivery.ts'
import { createFlowNavigator } from '../../../src/browser/player/navigator.ts'
import {
  OUTBOX_KEY_PREFIX,
  Outbox,
  type OutboxStatus,
  recoverStoredOutboxes,
  type StoredOutbox,
} from '../../../src/browser/player/outbox.ts'
import {
  commitBeaconBody,
  createRuntimeClient,
  type FetchFn,
} from '../../../src/browser/player/runtime.client.ts'
import {
  type Api2004,
  type Delta,
  deltaPosition,
} from '../../../src/modules/scorm/data-model/index.ts'

type Step = 'network' | 503 | 429 | 'conflict' | 'lose-response' | 'forget' | 401

/** The server's sequence_jump rule (runtime-commits.ts MAX_SEQ_STEP), small here. */
const MAX_SEQ_STEP = 2

/**
 * Stands in for the server's commit endpoint at the network boundary (fetch): it applies deltas
 * idempotently by seq and answers 409 sequence_gap exactly as docs/runtime-protocol.md says.
 * `plan` scripts failures for the next requests, in order.
 */
function fakeServer(token = 'rt-token') {
  const deliveries = new Map<string, { lastSeq: number; values: Record<string, string> }>()
  const received: Delta[] = []
  const bodies: Array<{ delta: Delta; refused?: unknown[] }> = []
  /** How the server placed each delta it read: apply, duplicate, gap, jump. */
  const answers: string[] = []
  const plan: Step[] = []
  let inFlight = 0
  let maxInFlight = 0
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    })
  const fetch: FetchFn = async (url, init) => {
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    try {
      await new Promise((resolve) => setTimeout(resolve, 1))
      assert.match(url, /^\/runtime\/sessions\/ses_1\/commits$/)
      const step = plan.shift()
      if (step === 'network') throw new TypeError('Failed to fetch')
      if (step === 503) return json(503, { error: { code: 'service_unavailable' } })
      if (step === 429)
        return json(429, { error: { code: 'rate_limited' } }, { 'retry-after': '0' })
      if (step === 'conflict') return json(409, { error: { code: 'conflict', message: 'race' } })
      const auth = new Headers(init?.headers).get('authorization')
      if (step === 401 || auth !== `Bearer ${token}`) {
        return json(401, { error: { code: 'unauthorized', message: 'expired' } })
      }
      const body = JSON.parse(String(init?.body)) as {
        delivery_id: string
        delta: Delta
        refused?: unknown[]
      }
      const d = deliveries.get(body.delivery_id) ?? { lastSeq: 0, values: {} }
      deliveries.set(body.delivery_id, d)
      received.push(body.delta)
      bodies.push(body)
      const position = deltaPosition(d.lastSeq, body.delta)
      if (position === 'apply' && body.delta.seq - d.lastSeq > MAX_SEQ_STEP) {
        answers.push('jump')
        return json(409, {
          error: { code: 'sequence_jump', message: 'jump', details: { last_seq: d.lastSeq } },
        })
      }
      answers.push(position)
      if (position === 'duplicate') return json(200, { applied: false, last_seq: d.lastSeq })
      if (position === 'gap') {
        return json(409, {
          error: { code: 'sequence_gap', message: 'gap', details: { last_seq: d.lastSeq } },
        })
      }
      // 'forget': the server answers as if it had stored the commit but loses it (a restore).
      if (step !== 'forget') {
        Object.assign(d.values, body.delta.values)
        d.lastSeq = body.delta.seq
      }
      if (step === 'lose-response') throw new TypeError('connection reset')
      return json(200, { applied: true, last_seq: body.delta.seq, errors: [] })
    } finally {
      inFlight--
    }
  }
  return {
    fetch,
    plan,
    received,
    bodies,
    answers,
    delivery: (id: string) => deliveries.get(id) ?? { lastSeq: 0, values: {} },
    maxInFlight: () => maxInFlight,
  }
}

function memoryStorage() {
  const map = new Map<string, string>()
  return {
    map,
    get length() {
      return map.size
    },
    key: (i: number) => [...map.keys()][i] ?? null,
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
  }
}

function launch(server: ReturnType<typeof fakeServer>, storage = memoryStorage()) {
  const statuses: OutboxStatus[] = []
  const delivery: Delivery = openDelivery({
    response: {
      delivery_id: 'scd_1',
      item_id: 'item_1',
      scorm_version: '2004',
      launch_data: { learnerId: 'l1', learnerName: 'Doe, Jane' },
    },
    sessionId: 'ses_1',
    runtimeToken: 'rt-token',
    client: createRuntimeClient({ sessionId: 'ses_1', fetch: server.fetch }),
    navigator: createFlowNavigator([]),
    dataModelOptions: {},
    storage,
    onTerminate: () => {},
    onStatus: (_o, s) => statuses.push(s),
    retry: { baseMs: 2, maxMs: 20 },
  })
  const api = delivery.runtime.api as Api2004
  assert.equal(api.Initialize(''), 'true')
  return { delivery, api, statuses, storage }
}

describe('commit outbox', () => {
  test('commits reach the server one at a time, in order, and are then forgotten', async () => {
    const server = fakeServer()
    const { delivery, api, storage } = launch(server)
    api.SetValue('cmi.location', 'p1')
    api.Commit('')
    api.SetValue('cmi.location', 'p2')
    api.SetValue('cmi.suspend_data', 'abc')
    api.Commit('')
    api.SetValue('cmi.completion_status', 'completed')
    api.Terminate('')
    assert.equal(await delivery.outbox.whenDrained(2000), 'drained')
    assert.deepEqual(
      server.received.map((d) => [d.seq, d.fromSeq, d.final]),
      [
        [1, 0, false],
        [2, 1, false],
        [3, 2, true],
      ],
    )
    assert.equal(server.maxInFlight(), 1)
    assert.deepEqual(server.delivery('scd_1').values, {
      'cmi.location': 'p2',
      'cmi.suspend_data': 'abc',
      'cmi.completion_status': 'completed',
    })
    assert.equal(storage.map.size, 0, 'nothing left in localStorage once acknowledged')
  })

  test('network failures and 5xx are retried with growing delays; the SCO never sees them', async () => {
    const server = fakeServer()
    server.plan.push('network', 503, 429, 'conflict')
    const { delivery, api, statuses, storage } = launch(server)
    api.SetValue('cmi.location', 'p1')
    assert.equal(api.Commit(''), 'true')
    assert.equal(api.GetLastError(), '0')
    // Held in storage while the server cannot be reached.
    const stored = JSON.parse(storage.map.get(`${OUTBOX_KEY_PREFIX}scd_1`) ?? '{}') as StoredOutbox
    assert.deepEqual(stored.deltas[0]?.values, { 'cmi.location': 'p1' })
    assert.equal(await delivery.outbox.whenDrained(2000), 'drained')
    const retries = statuses.flatMap((s) => (s.state === 'retrying' ? [s] : []))
    assert.deepEqual(
      retries.map((r) => r.attempt),
      [1, 2, 3, 4],
    )
    assert.ok((retries[3]?.inMs ?? 0) >= (retries[0]?.inMs ?? 0))
    assert.equal(server.delivery('scd_1').values['cmi.location'], 'p1')
    assert.equal(statuses.at(-1)?.state, 'idle')
  })

  test('a commit whose answer was lost is sent again and counted once', async () => {
    const server = fakeServer()
    server.plan.push('lose-response')
    const { delivery, api } = launch(server)
    api.SetValue('cmi.location', 'p1')
    api.Commit('')
    assert.equal(await delivery.outbox.whenDrained(2000), 'drained')
    assert.deepEqual(
      server.received.map((d) => d.seq),
      [1, 1],
    )
    assert.equal(server.delivery('scd_1').lastSeq, 1)
    assert.equal(delivery.outbox.acked(), 1)
  })

  test('on 409 sequence_gap the missing commits are resent as one delta from last_seq', async () => {
    const server = fakeServer()
    server.plan.push('forget')
    const { delivery, api } = launch(server)
    api.SetValue('cmi.location', 'p1')
    api.SetValue('cmi.score.raw', '40')
    api.Commit('')
    await delivery.outbox.whenDrained(2000)
    api.SetValue('cmi.location', 'p2')
    api.Terminate('')
    assert.equal(await delivery.outbox.whenDrained(2000), 'drained')
    const [first, second, repair] = server.received
    assert.deepEqual([first?.seq, second?.seq], [1, 2])
    // Renumbered to follow what the server holds: the numbers it sees never skip.
    assert.deepEqual(
      { seq: repair?.seq, fromSeq: repair?.fromSeq, final: repair?.final },
      { seq: 1, fromSeq: 0, final: true },
    )
    assert.deepEqual(server.delivery('scd_1').values, {
      'cmi.location': 'p2',
      'cmi.score.raw': '40',
    })
  })

  test('a recovered queue (no runtime to ask) is merged and sent from last_seq on a gap', async () => {
    const server = fakeServer()
    const recovered: Delta[] = [
      { seq: 3, fromSeq: 2, values: { 'cmi.location': 'p3' }, final: false },
      { seq: 4, fromSeq: 3, values: { 'cmi.exit': 'suspend' }, final: true },
    ]
    const client = createRuntimeClient({ sessionId: 'ses_1', fetch: server.fetch })
    const outbox = new Outbox({
      sessionId: 'ses_1',
      deliveryId: 'scd_old',
      recovered,
      send: (d) => client.commit('rt-token', 'scd_old', d),
      retry: { baseMs: 2 },
    })
    outbox.flush()
    assert.equal(await outbox.whenDrained(2000), 'drained')
    assert.deepEqual(server.received.at(-1), {
      seq: 1,
      fromSeq: 0,
      values: { 'cmi.location': 'p3', 'cmi.exit': 'suspend' },
      final: true,
    })
    assert.equal(server.delivery('scd_old').lastSeq, 1)
  })

  test('409 sequence_jump: resent from last_seq as the next number, later commits follow on', async () => {
    const server = fakeServer()
    const client = createRuntimeClient({ sessionId: 'ses_1', fetch: server.fetch })
    // The server holds commit 1; this page's runtime is at commit 9 and has one delta covering
    // 2..9 (a merged remainder) — 8 past the last applied, more than the server allows.
    const first: Delta = { seq: 1, fromSeq: 0, values: { 'cmi.location': 'p1' }, final: false }
    await client.commit('rt-token', 'scd_j', first)
    const runtimeValues = { 'cmi.location': 'p9', 'cmi.score.raw': '40' }
    const outbox = new Outbox({
      sessionId: 'ses_1',
      deliveryId: 'scd_j',
      send: (d, refused) => client.commit('rt-token', 'scd_j', d, refused),
      changesSince: (seq) => ({ seq: 9, fromSeq: seq, values: runtimeValues, final: false }),
      retry: { baseMs: 2 },
    })
    outbox.push({ seq: 9, fromSeq: 1, values: runtimeValues, final: false })
    assert.equal(await outbox.whenDrained(2000), 'drained')
    // The runtime's next commit (10) follows the renumbered one.
    outbox.push({ seq: 10, fromSeq: 9, values: { 'cmi.exit': 'suspend' }, final: true })
    assert.equal(await outbox.whenDrained(2000), 'drained')
    assert.deepEqual(server.answers, ['apply', 'jump', 'apply', 'apply'])
    assert.deepEqual(
      server.received.map((d) => [d.seq, d.fromSeq, d.final]),
      [
        [1, 0, false],
        [9, 1, false],
        [2, 1, false],
        [3, 2, true],
      ],
    )
    assert.deepEqual(server.delivery('scd_j').values, {
      'cmi.location': 'p9',
      'cmi.score.raw': '40',
      'cmi.exit': 'suspend',
    })
  })

  test('a delta never starts past what the server holds, whatever the network does', async () => {
    const server = fakeServer()
    const { delivery, api } = launch(server)
    const steps: Step[] = ['network', 'lose-response', 503, 'conflict', 429, 'lose-response']
    for (let i = 0; i < 24; i++) {
      if (i % 4 === 0) server.plan.push(steps[(i / 4) % steps.length] as Step)
      api.SetValue('cmi.location', `p${i}`)
      api.SetValue('cmi.suspend_data', `s${i}`)
      api.Commit('')
    }
    api.Terminate('')
    assert.equal(await delivery.outbox.whenDrained(5000), 'drained')
    assert.deepEqual(
      server.answers.filter((a) => a === 'gap' || a === 'jump'),
      [],
    )
    assert.deepEqual(server.delivery('scd_1').values, {
      'cmi.location': 'p23',
      'cmi.suspend_data': 's23',
    })
    assert.equal(server.maxInFlight(), 1)
  })

  test('refused SetValue calls go with the next commit only, at most 20, values cut to 200', async () => {
    const server = fakeServer()
    const { delivery } = launch(server)
    const api = delivery.api as Api2004
    assert.equal(api.SetValue('cmi.completion_status', 'finished'), 'false')
    assert.equal(api.SetValue('cmi.learner_id', 'me'), 'false')
    assert.equal(api.SetValue('cmi.score.scaled', '7'), 'false')
    assert.equal(api.SetValue('cmi.location', 'p1'), 'true')
    api.Commit('')
    for (let i = 0; i < 30; i++) api.SetValue('cmi.interactions.0.id', `${'x '.repeat(150)}${i}`)
    api.SetValue('cmi.location', 'p2')
    api.Commit('')
    api.SetValue('cmi.location', 'p3')
    api.Commit('')
    assert.equal(await delivery.outbox.whenDrained(2000), 'drained')
    const [first, second, third] = server.bodies
    assert.deepEqual(first?.refused, [
      { element: 'cmi.completion_status', value: 'finished', error_code: 406 },
      { element: 'cmi.learner_id', value: 'me', error_code: 404 },
      { element: 'cmi.score.scaled', value: '7', error_code: 407 },
    ])
    const many = second?.refused as Array<{ value: string; error_code: number }>
    assert.equal(many.length, 20)
    assert.equal(many[0]?.value.length, 200)
    assert.equal(many[0]?.error_code, 406)
    assert.equal(third && 'refused' in third, false)
  })

  test('a refused commit (expired token) blocks sending and stays stored for the next page', async () => {
    const server = fakeServer('another-token')
    const { delivery, api, statuses, storage } = launch(server)
    api.SetValue('cmi.location', 'p1')
    assert.equal(api.Commit(''), 'true')
    assert.equal(await delivery.outbox.whenDrained(2000), 'blocked')
    assert.deepEqual(statuses.at(-1), { state: 'blocked', status: 401, code: 'unauthorized' })
    assert.equal(delivery.outbox.pending().length, 1)
    assert.ok(storage.map.has(`${OUTBOX_KEY_PREFIX}scd_1`))
  })

  test('the remainder for a beacon covers every unacknowledged commit and carries the token', async () => {
    const server = fakeServer()
    server.plan.push('network', 'network', 'network')
    const { delivery, api } = launch(server)
    api.SetValue('cmi.location', 'p1')
    api.Commit('')
    api.SetValue('cmi.location', 'p2')
    api.SetValue('cmi.exit', 'suspend')
    api.Terminate('')
    const merged = delivery.outbox.remainder()
    assert.deepEqual(merged, {
      seq: 2,
      fromSeq: 0,
      values: { 'cmi.location': 'p2', 'cmi.exit': 'suspend' },
      final: true,
    })
    const body = JSON.parse(commitBeaconBody('rt-token', delivery.id, merged as Delta))
    assert.deepEqual(Object.keys(body), ['token', 'delivery_id', 'delta'])
    assert.equal(await delivery.outbox.whenDrained(2000), 'drained')
  })

  test('stored queues of this session are recovered; other sessions kept; stale ones dropped', () => {
    const storage = memoryStorage()
    const entry = (sid: string, did: string, t: number): StoredOutbox => ({
      v: 1,
      sid,
      did,
      t,
      deltas: [{ seq: 1, fromSeq: 0, values: { 'cmi.location': did }, final: false }],
    })
    const now = Date.UTC(2026, 0, 30)
    storage.setItem(`${OUTBOX_KEY_PREFIX}a`, JSON.stringify(entry('ses_1', 'a', now - 1000)))
    storage.setItem(`${OUTBOX_KEY_PREFIX}b`, JSON.stringify(entry('ses_2', 'b', now - 1000)))
    storage.setItem(`${OUTBOX_KEY_PREFIX}c`, JSON.stringify(entry('ses_1', 'c', now - 30 * 864e5)))
    storage.setItem(`${OUTBOX_KEY_PREFIX}d`, '{not json')
    storage.setItem('unrelated', 'x')
    const found = recoverStoredOutboxes(storage, 'ses_1', { now })
    assert.deepEqual(
      found.map((f) => f.did),
      ['a'],
    )
    assert.deepEqual([...storage.map.keys()].sort(), [
      `${OUTBOX_KEY_PREFIX}a`,
      `${OUTBOX_KEY_PREFIX}b`,
      'unrelated',
    ])
  })

  test('storage that throws (quota, private mode) does not stop commits', async () => {
    const server = fakeServer()
    const broken = {
      ...memoryStorage(),
      setItem: () => {
        throw new Error('QuotaExceededError')
      },
    }
    const { delivery, api } = launch(server, broken)
    api.SetValue('cmi.location', 'p1')
    assert.equal(api.Commit(''), 'true')
    assert.equal(await delivery.outbox.whenDrained(2000), 'drained')
    assert.equal(server.delivery('scd_1').values['cmi.location'], 'p1')
  })
})
