import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type {
  EgressErrorCode,
  HttpEgressClient,
  Resolver,
} from '../../../src/infra/http-egress/index.ts'
import {
  checkUrlForRegistration,
  createHttpEgressClient,
  HttpEgressError,
} from '../../../src/infra/http-egress/index.ts'
import { type Receiver, startReceiver, TEST_CA } from './tls-receiver.ts'

/** Names the fake resolver knows; anything else fails like an unknown name (ENOTFOUND). */
const ZONE: Record<string, string[]> = {
  localhost: ['127.0.0.1', '::1'],
  'localhost.': ['127.0.0.1'],
  'loopback6.test': ['::1'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'public-then-private.test': ['93.184.216.34', '10.0.0.5'],
  'private-then-public.test': ['10.0.0.5', '93.184.216.34'],
  'public-then-loopback6.test': ['2606:4700::1111', '::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'compat.test': ['::127.0.0.1'],
  'metadata.google.internal': ['169.254.169.254'],
  'imds6.test': ['fd00:ec2::254'],
  'nat64.test': ['64:ff9b::7f00:1'],
  'cgnat.test': ['100.64.1.1'],
  'zone.test': ['fe80::1%lo'],
  'odd-spelling.test': ['127.1'],
  'rfc1918.test': ['192.168.0.10'],
  'empty.test': [],
}

const zoneResolver: Resolver = async (hostname) => {
  const answers = ZONE[hostname]
  if (!answers)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
}

type Case = [url: string, code: EgressErrorCode]

/** `{p}` is the port the receiver listens on (127.0.0.1 and ::1). */
const CASES: Case[] = [
  // IPv4 loopback in every spelling the WHATWG URL parser accepts
  ['https://127.0.0.1:{p}/', 'blocked_address'],
  ['https://127.0.0.2:{p}/', 'blocked_address'],
  ['https://2130706433:{p}/', 'blocked_address'], // decimal
  ['https://0177.0.0.1:{p}/', 'blocked_address'], // octal
  ['https://017700000001:{p}/', 'blocked_address'], // octal, one number
  ['https://0x7f.0.0.1:{p}/', 'blocked_address'], // hex
  ['https://0x7f000001:{p}/', 'blocked_address'], // hex, one number
  ['https://0x7f.1:{p}/', 'blocked_address'], // hex, short
  ['https://127.1:{p}/', 'blocked_address'], // short
  ['https://127.0.1:{p}/', 'blocked_address'], // short
  ['https://127.0.0.1.:{p}/', 'blocked_address'], // trailing dot
  ['https://%31%32%37.0.0.1:{p}/', 'blocked_address'], // percent-encoded
  ['https://\uff11\uff12\uff17.\uff10.\uff10.\uff11:{p}/', 'blocked_address'], // full-width
  ['https://0.0.0.0:{p}/', 'blocked_address'],
  ['https://0:{p}/', 'blocked_address'],
  // IPv6 loopback and IPv6 forms of IPv4 loopback
  ['https://[::1]:{p}/', 'blocked_address'],
  ['https://[0:0:0:0:0:0:0:1]:{p}/', 'blocked_address'],
  ['https://[::]:{p}/', 'blocked_address'],
  ['https://[::ffff:127.0.0.1]:{p}/', 'blocked_address'], // IPv4-mapped
  ['https://[::ffff:7f00:1]:{p}/', 'blocked_address'], // IPv4-mapped, hex
  ['https://[0:0:0:0:0:ffff:127.0.0.1]:{p}/', 'blocked_address'],
  ['https://[::127.0.0.1]:{p}/', 'blocked_address'], // IPv4-compatible
  ['https://[::ffff:0:7f00:1]:{p}/', 'blocked_address'], // SIIT (RFC 6145)
  ['https://[64:ff9b::127.0.0.1]:{p}/', 'blocked_address'], // NAT64 of loopback
  ['https://[64:ff9b::a00:1]:{p}/', 'blocked_address'], // NAT64 of 10.0.0.1
  ['https://[64:ff9b:1::808:808]:{p}/', 'blocked_address'], // local-use NAT64
  ['https://[2002:7f00:1::1]:{p}/', 'blocked_address'], // 6to4 of 127.0.0.1
  ['https://[2002:c0a8:101::1]:{p}/', 'blocked_address'], // 6to4 of 192.168.1.1
  ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]:{p}/', 'blocked_address'], // Teredo, client 127.0.0.1
  ['https://[2001:0:a00:1:8000:63bf:f7f7:f7f7]:{p}/', 'blocked_address'], // Teredo, server 10.0.0.1
  // private, link-local, CGNAT, ULA, multicast, broadcast, reserved
  ['https://10.0.0.1:{p}/', 'blocked_address'],
  ['https://172.16.5.4:{p}/', 'blocked_address'],
  ['https://172.31.255.255:{p}/', 'blocked_address'],
  ['https://192.168.1.1:{p}/', 'blocked_address'],
  ['https://169.254.1.1:{p}/', 'blocked_address'],
  ['https://100.64.0.1:{p}/', 'blocked_address'],
  ['https://[fe80::1]:{p}/', 'blocked_address'],
  ['https://[fc00::1]:{p}/', 'blocked_address'],
  ['https://[fd12:3456::1]:{p}/', 'blocked_address'],
  ['https://[fec0::1]:{p}/', 'blocked_address'],
  ['https://[ff02::1]:{p}/', 'blocked_address'],
  ['https://224.0.0.1:{p}/', 'blocked_address'],
  ['https://255.255.255.255:{p}/', 'blocked_address'],
  ['https://192.0.2.1:{p}/', 'blocked_address'], // documentation
  ['https://198.51.100.7:{p}/', 'blocked_address'], // documentation
  ['https://203.0.113.9:{p}/', 'blocked_address'], // documentation
  ['https://198.18.0.1:{p}/', 'blocked_address'], // benchmarking
  ['https://192.0.0.8:{p}/', 'blocked_address'], // IETF protocol assignments
  ['https://240.0.0.1:{p}/', 'blocked_address'], // reserved
  ['https://[2001:db8::1]:{p}/', 'blocked_address'], // documentation
  ['https://[100::1]:{p}/', 'blocked_address'], // discard
  ['https://[::8.8.8.8]:{p}/', 'blocked_address'], // IPv4-compatible, even of a public address
  // cloud metadata, in several spellings
  ['https://169.254.169.254:{p}/', 'blocked_address'],
  ['https://2852039166:{p}/', 'blocked_address'],
  ['https://0251.0376.0251.0376:{p}/', 'blocked_address'],
  ['https://[::ffff:a9fe:a9fe]:{p}/', 'blocked_address'],
  ['https://[fd00:ec2::254]:{p}/', 'blocked_address'],
  ['https://100.100.100.200:{p}/', 'blocked_address'],
  ['https://168.63.129.16:{p}/', 'blocked_address'],
  // names whose answers include a blocked address
  ['https://localhost:{p}/', 'blocked_address'],
  ['https://localhost.:{p}/', 'blocked_address'],
  ['https://LOCALHOST:{p}/', 'blocked_address'],
  ['https://loopback6.test:{p}/', 'blocked_address'],
  ['https://127.0.0.1.nip.io:{p}/', 'blocked_address'],
  ['https://public-then-private.test:{p}/', 'blocked_address'],
  ['https://private-then-public.test:{p}/', 'blocked_address'],
  ['https://public-then-loopback6.test:{p}/', 'blocked_address'],
  ['https://mapped.test:{p}/', 'blocked_address'],
  ['https://compat.test:{p}/', 'blocked_address'],
  ['https://metadata.google.internal:{p}/', 'blocked_address'],
  ['https://imds6.test:{p}/', 'blocked_address'],
  ['https://nat64.test:{p}/', 'blocked_address'],
  ['https://cgnat.test:{p}/', 'blocked_address'],
  ['https://zone.test:{p}/', 'blocked_address'],
  ['https://odd-spelling.test:{p}/', 'blocked_address'],
  ['https://rfc1918.test:{p}/', 'blocked_address'],
  // names that do not resolve
  ['https://empty.test:{p}/', 'dns_failed'],
  ['https://no-such-host.test:{p}/', 'dns_failed'],
  // URLs refused before any lookup
  ['http://127.0.0.1:{p}/', 'invalid_url'],
  ['http://receiver.test:{p}/', 'invalid_url'],
  ['https://user:secret@localhost:{p}/', 'invalid_url'],
  ['https://user@localhost:{p}/', 'invalid_url'],
  ['file:///etc/passwd', 'invalid_url'],
  ['ftp://127.0.0.1:{p}/', 'invalid_url'],
  ['gopher://127.0.0.1:{p}/_', 'invalid_url'],
  ['https://256.0.0.1:{p}/', 'invalid_url'],
  ['https://[fe80::1%25lo]:{p}/', 'invalid_url'],
  ['not a url', 'invalid_url'],
]

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
    assert.ok(CASES.length >= 40, `${CASES.length} cases`)
  })

  for (const [template, code] of CASES) {
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
