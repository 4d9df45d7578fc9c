import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, afterEach, before, describe, it } from 'node:test'
import type {
  HttpEgressClient,
  HttpEgressClientOptions,
  Resolver,
} from '../../../src/infra/http-egress/index.ts'
import {
  checkUrlForRegistration,
  createHttpEgressClient,
  HttpEgressError,
} from '../../../src/infra/http-egress/index.ts'
import { type Handler, type Receiver, startReceiver, TEST_CA } from './tls-receiver.ts'

const resolveToLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }]

/** Routes by path so one receiver serves every scenario. */
const routes: Record<string, Handler> = {
  '/hook': (_req, res, body) => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ echoed: JSON.parse(body) as unknown }))
  },
  '/big': (_req, res) => res.end(Buffer.alloc(100 * 1024, 'a')),
  '/html': (_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8')
    res.end('<p>hi</p>')
  },
  '/png': (_req, res) => {
    res.setHeader('content-type', 'image/png')
    res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]))
  },
  '/missing': (_req, res) => {
    res.statusCode = 404
    res.setHeader('content-type', 'text/html')
    res.end('nope')
  },
  '/no-headers': () => {
    // never answers: the client's total timeout must fire
  },
  '/slow-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.write('first bytes…')
    // the rest never comes
  },
}

function error(code: string, pattern?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof HttpEgressError, `not an HttpEgressError: ${String(err)}`)
    assert.equal(err.code, code, err.message)
    if (pattern) assert.match(err.message, pattern)
    return true
  }
}

describe('HTTP egress client against a real HTTPS receiver on loopback', () => {
  let receiver: Receiver
  let second: Receiver
  let url: (path: string, host?: string) => string
  const clients: HttpEgressClient[] = []
  const client = (options: HttpEgressClientOptions = {}) => {
    const c = createHttpEgressClient({
      resolve: resolveToLoopback,
      allowAddresses: ['127.0.0.1'],
      ca: TEST_CA,
      ...options,
    })
    clients.push(c)
    return c
  }

  before(async () => {
    second = await startReceiver()
    routes['/redirect'] = (_req, res) => {
      res.writeHead(302, { location: `https://127.0.0.1:${second.port}/target` })
      res.end()
    }
    receiver = await startReceiver((req, res, body) => {
      const route = routes[new URL(req.url ?? '/', 'https://x').pathname]
      if (route) route(req, res, body)
      else res.end('ok')
    })
    url = (path, host = 'receiver.test') => `https://${host}:${receiver.port}${path}`
  })
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()))
  })
  after(async () => {
    await receiver.close()
    await second.close()
  })

  it('POSTs JSON to an allowlisted receiver with SNI and verification for the URL host', async () => {
    const before = receiver.hits.length
    let pinned: string | undefined
    const c = client({ onConnect: (_host, address) => (pinned = address) })
    const res = await c.request({
      url: url('/hook?attempt=1'),
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-delivery-id': 'd1' },
      body: JSON.stringify({ event: 'session.completed' }),
    })
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-type'], 'application/json')
    assert.deepEqual(JSON.parse(res.body.toString()), { echoed: { event: 'session.completed' } })
    assert.equal(res.truncated, false)
    const hit = receiver.hits[before]
    assert.ok(hit)
    assert.equal(hit.method, 'POST')
    assert.equal(hit.url, '/hook?attempt=1')
    assert.equal(hit.headers.host, `receiver.test:${receiver.port}`)
    assert.equal(hit.headers['x-delivery-id'], 'd1')
    assert.match(String(hit.headers['user-agent']), /Courseport/)
    assert.equal(hit.servername, 'receiver.test')
    assert.equal(pinned, '127.0.0.1')
  })

  it('connects to the address it checked, resolving once per socket (no second lookup)', async () => {
    const start = receiver.connections()
    let lookups = 0
    const c = client({
      resolve: async () => {
        lookups += 1
        return [{ address: '127.0.0.1', family: 4 }]
      },
    })
    // receiver.test exists only in this resolver: reaching it proves the socket used our answer.
    for (let i = 0; i < 5; i++) assert.equal((await c.request({ url: url('/') })).status, 200)
    assert.ok(lookups >= 1)
    assert.equal(lookups, receiver.connections() - start)
  })

  it('reaches an allowlisted IP literal, verified against the certificate IP SAN', async () => {
    const res = await client().request({ url: url('/', '127.0.0.1') })
    assert.equal(res.status, 200)
    const last = receiver.hits.at(-1)
    assert.ok(last)
    assert.ok(!last.servername, 'no SNI for an IP literal')
  })

  it('returns a 302 as-is and never requests its Location', async () => {
    const res = await client().request({ url: url('/redirect'), method: 'POST', body: '{}' })
    assert.equal(res.status, 302)
    assert.equal(res.headers.location, `https://127.0.0.1:${second.port}/target`)
    await new Promise((r) => setTimeout(r, 100))
    assert.equal(second.hits.length, 0)
    assert.equal(second.connections(), 0)
  })

  it('times out when the receiver never answers', async () => {
    const started = performance.now()
    await assert.rejects(
      client().request({ url: url('/no-headers'), method: 'POST', body: '{}', timeoutMs: 300 }),
      error('timeout', /receiver\.test.*300 ms/),
    )
    const elapsed = performance.now() - started
    assert.ok(elapsed >= 250 && elapsed < 2_000, `elapsed ${elapsed} ms`)
  })

  it('the total timeout also covers a body that stalls after the headers', async () => {
    await assert.rejects(
      client({ timeoutMs: 300 }).request({ url: url('/slow-body') }),
      error('timeout'),
    )
  })

  it('fails TLS when the certificate does not name the host, before any request is sent', async () => {
    const before = receiver.hits.length
    await assert.rejects(
      client().request({ url: url('/hook', 'other.test'), method: 'POST', body: '{}' }),
      error('tls_failed', /other\.test/),
    )
    assert.equal(receiver.hits.length, before)
  })

  it('fails TLS when the certificate chain is not trusted (no test CA given)', async () => {
    await assert.rejects(
      client({ ca: undefined }).request({ url: url('/') }),
      error('tls_failed', /receiver\.test/),
    )
  })

  it('reuses keep-alive connections per origin, within the per-origin socket cap', async () => {
    const c = client({ connectionsPerOrigin: 8 })
    const start = receiver.connections()
    for (let i = 0; i < 20; i++) {
      assert.equal((await c.request({ url: url('/hook'), method: 'POST', body: '{}' })).status, 200)
    }
    // undici's pool may open a second socket when a request is queued in the same tick the
    // previous one finishes; what matters is that 20 requests do not mean 20 handshakes.
    assert.ok(receiver.connections() - start <= 2, `${receiver.connections() - start} sockets`)
    const burst = await Promise.all(
      Array.from({ length: 100 }, () =>
        c.request({ url: url('/hook'), method: 'POST', body: '1' }),
      ),
    )
    assert.ok(burst.every((r) => r.status === 200))
    const opened = receiver.connections() - start
    assert.ok(opened <= 8, `opened ${opened}`)
    // sequential again: served by the pooled sockets, no new handshakes
    const pooled = receiver.connections()
    for (let i = 0; i < 10; i++) await c.request({ url: url('/') })
    assert.equal(receiver.connections(), pooled)
  })

  // How many per second is a speed claim: bench/webhooks.bench.ts measures it (egress client).
  it('1 000 small POSTs from 32 callers all arrive, over at most 32 pooled sockets', async () => {
    const c = client({ connectionsPerOrigin: 32 })
    const total = 1_000
    const hitsBefore = receiver.hits.length
    const socketsBefore = receiver.connections()
    let next = 0
    const statuses: number[] = []
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < total) {
          next += 1
          const res = await c.request({ url: url('/hook'), method: 'POST', body: '{"a":1}' })
          statuses.push(res.status)
        }
      }),
    )
    assert.equal(statuses.length, total)
    assert.ok(statuses.every((s) => s === 200))
    assert.equal(receiver.hits.length - hitsBefore, total)
    const opened = receiver.connections() - socketsBefore
    assert.ok(opened <= 32, `${opened} TLS connections for ${total} requests`)
  })

  it('refuses a body over the cap, or truncates it when asked (response excerpts)', async () => {
    const c = client()
    await assert.rejects(c.request({ url: url('/big') }), error('too_large', /65536/))
    const cut = await c.request({ url: url('/big'), onOversize: 'truncate' })
    assert.equal(cut.status, 200)
    assert.equal(cut.body.length, 65_536)
    assert.equal(cut.truncated, true)
    const larger = await c.request({ url: url('/big'), maxBodyBytes: 200 * 1024 })
    assert.equal(larger.body.length, 100 * 1024)
    assert.equal(larger.truncated, false)
  })

  it('checks the content type of 2xx responses when asked (image fetching)', async () => {
    const c = client()
    const images = ['image/png', 'image/jpeg']
    const png = await c.request({ url: url('/png'), acceptContentTypes: images })
    assert.equal(png.body.length, 4)
    assert.equal(
      (await c.request({ url: url('/png'), acceptContentTypes: ['image/*'] })).status,
      200,
    )
    await assert.rejects(
      c.request({ url: url('/html'), acceptContentTypes: images }),
      error('unsupported_content_type', /text\/html/),
    )
    const missing = await c.request({ url: url('/missing'), acceptContentTypes: images })
    assert.equal(missing.status, 404)
  })

  it('reports refused connections, failed lookups and cancellation with their own codes', async () => {
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const deadPort = (closed.address() as AddressInfo).port
    await new Promise<void>((r) => closed.close(() => r()))
    await assert.rejects(
      client().request({ url: `https://receiver.test:${deadPort}/` }),
      error('connection_failed', /receiver\.test/),
    )
    const nxdomain: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })
    }
    await assert.rejects(
      client({ resolve: nxdomain }).request({ url: url('/') }),
      error('dns_failed', /receiver\.test.*ENOTFOUND/),
    )
    const controller = new AbortController()
    const pending = client().request({ url: url('/no-headers'), signal: controller.signal })
    setTimeout(() => controller.abort(), 50)
    await assert.rejects(pending, error('aborted'))
  })

  it('refuses a caller-supplied Host header', async () => {
    await assert.rejects(
      client().request({ url: url('/'), headers: { Host: 'internal.example' } }),
      TypeError,
    )
  })

  it('checkUrlForRegistration normalises, resolves and applies the port and scheme policy', async () => {
    const ok = await checkUrlForRegistration(`https://Receiver.TEST:${receiver.port}/hook#x`, {
      resolve: resolveToLoopback,
      allowAddresses: ['127.0.0.1'],
    })
    assert.deepEqual(ok, {
      url: `https://receiver.test:${receiver.port}/hook#x`,
      host: 'receiver.test',
      addresses: ['127.0.0.1'],
    })
    await assert.rejects(
      checkUrlForRegistration(url('/'), {
        resolve: resolveToLoopback,
        allowAddresses: ['127.0.0.1'],
        allowedPorts: [443],
      }),
      error('invalid_url', /port/),
    )
    await assert.rejects(
      checkUrlForRegistration('https://receiver.test/', { resolve: resolveToLoopback }),
      error('blocked_address', /receiver\.test resolves to a loopback address/),
    )
    const viaClient = await client().checkUrl(url('/'))
    assert.deepEqual(viaClient.addresses, ['127.0.0.1'])
  })

  it('metadata addresses stay blocked even inside an allowlisted range', async () => {
    const c = client({
      allowAddresses: ['169.254.0.0/16'],
      resolve: async () => [{ address: '169.254.169.254', family: 4 }],
    })
    await assert.rejects(c.request({ url: url('/') }), error('blocked_address', /metadata/))
  })

  it('plain http works only when explicitly enabled (local development)', async () => {
    const plain = createServer((_req, res) => res.end('plain'))
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r))
    const port = (plain.address() as AddressInfo).port
    try {
      await assert.rejects(
        client().request({ url: `http://receiver.test:${port}/` }),
        error('invalid_url', /https:/),
      )
      const res = await client({ allowedProtocols: ['https:', 'http:'] }).request({
        url: `http://receiver.test:${port}/`,
      })
      assert.equal(res.body.toString(), 'plain')
    } finally {
      await Promise.all(clients.splice(0).map((c) => c.close()))
      plain.closeAllConnections()
      await new Promise<void>((r) => plain.close(() => r()))
    }
  })
})
