import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { HttpEgressClient, Resolver } from '../../../src/infra/http-egress/index.ts'
import {
  checkUrlForRegistration,
  createHttpEgressClient,
  HttpEgressError,
} from '../../../src/infra/http-egress/index.ts'
import { SSRF_CASES, zoneResolver } from '../../helpers/ssrf-cases.ts'
import { type Receiver, startReceiver, TEST_CA } from './tls-receiver.ts'

describe('SSRF guard: blocked destinations never receive a request', () => {
  let receiver: Receiver
  let client: HttpEgressClient

  before(async () => {
    receiver = await startReceiver()
    // The test CA is trusted, so anything let through would complete TLS and be counted.
    client = createHttpEgressClient({ resolve: zoneResolver, ca: TEST_CA, timeoutMs: 5_000 })
  })
  after(async () => {
    await client.close()
    await receiver.close()
  })

  it('has a table of at least 40 cases', () => {
    assert.ok(SSRF_CASES.length >= 40, `${SSRF_CASES.length} cases`)
  })

  for (const [template, code] of SSRF_CASES) {
    it(`${template} -> ${code}`, async () => {
      const url = template.replace('{p}', String(receiver.port))
      const matches = (err: unknown) => {
        assert.ok(err instanceof HttpEgressError, `not an HttpEgressError: ${String(err)}`)
        assert.equal(err.code, code, err.message)
        return true
      }
      await assert.rejects(client.request({ url, method: 'POST', body: '{}' }), matches)
      await assert.rejects(checkUrlForRegistration(url, { resolve: zoneResolver }), matches)
    })
  }

  it('a name answering public first and loopback later (DNS rebinding) is refused', async () => {
    let calls = 0
    const rebinding: Resolver = async () => {
      calls += 1
      return [{ address: calls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }]
    }
    const url = `https://rebind.test:${receiver.port}/`
    const rebindClient = createHttpEgressClient({ resolve: rebinding, ca: TEST_CA })
    try {
      // Registration sees the public answer and accepts the URL …
      const checked = await checkUrlForRegistration(url, { resolve: rebinding })
      assert.deepEqual(checked.addresses, ['93.184.216.34'])
      // … but the delivery resolves again for its own socket and checks what it will connect to.
      await assert.rejects(rebindClient.request({ url, method: 'POST', body: '{}' }), {
        code: 'blocked_address',
      })
      assert.equal(calls, 2)
    } finally {
      await rebindClient.close()
    }
  })

  it('the blocked-address message names the host but not the internal address', async () => {
    const url = `https://rfc1918.test:${receiver.port}/`
    const err = await client.request({ url }).catch((e: unknown) => e)
    assert.ok(err instanceof HttpEgressError)
    assert.match(err.message, /rfc1918\.test/)
    assert.doesNotMatch(err.message, /192\.168/)
    assert.equal(err.address, '192.168.0.10')
    assert.equal(err.reason, 'private')
  })

  it('recorded zero hits on the receiver', () => {
    assert.equal(receiver.hits.length, 0)
    assert.equal(receiver.connections(), 0)
  })

  it('control: the same spellings do reach the receiver once explicitly allowlisted', async () => {
    const allowed = createHttpEgressClient({
      resolve: zoneResolver,
      ca: TEST_CA,
      allowAddresses: ['127.0.0.0/8', '::1'],
    })
    try {
      const urls = ['https://2130706433:{p}/', 'https://0x7f.1:{p}/', 'https://localhost:{p}/']
      if (receiver.ipv6) urls.push('https://[::1]:{p}/')
      for (const url of urls) {
        const res = await allowed.request({ url: url.replace('{p}', String(receiver.port)) })
        assert.equal(res.status, 200)
      }
      assert.equal(receiver.hits.length, urls.length)
    } finally {
      await allowed.close()
    }
  })
})
