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

/**
 * Stands in for the server's commit endpoint at the network boundary (fetch): it applies deltas
 * idempotently by seq and answers 409 sequence_gap exactly as docs/runtime-protocol.md says.
 * `plan` scripts failures for the next requests, in order.
 */
function fakeServer(token = 'rt-token') {
  const deliveries = new Map<string, { lastSeq: number; values: Record<string, string> }>()
  const received: Delta[] = []
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
      const body = JSON.parse(String(init?.body)) as { delivery_id: string; delta: Delta }
      const d = deliveries.get(body.delivery_id) ?? { lastSeq: 0, values: {} }
      deliveries.set(body.delivery_id, d)
      received.push(body.delta)
      const position = deltaPosition(d.lastSeq, body.delta)
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
    assert.deepEqual(
      { seq: repair?.seq, fromSeq: repair?.fromSeq, final: repair?.final },
      { seq: 2, fromSeq: 0, final: true },
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
      seq: 4,
      fromSeq: 0,
      values: { 'cmi.location': 'p3', 'cmi.exit': 'suspend' },
      final: true,
    })
    assert.equal(server.delivery('scd_old').lastSeq, 4)
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
