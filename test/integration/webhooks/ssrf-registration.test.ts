import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Resolver } from '../../../src/infra/http-egress/index.ts'
import { recordAuditEvent } from '../../../src/modules/events/audit-event.repository.ts'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { ZONE } from '../../helpers/ssrf-cases.ts'
import {
  createWebhookTestApp,
  type RoutedReceiver,
  SECRET,
  startRoutedReceiver,
  type WebhookTestApp,
} from './webhook-test-app.ts'

let rebindCalls = 0
const resolver: Resolver = async (hostname) => {
  if (hostname === 'rebind.test') {
    // DNS rebinding: public while the URL is checked, loopback when the delivery connects.
    rebindCalls += 1
    return [{ address: rebindCalls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }]
  }
  const answers = ZONE[hostname]
  if (!answers) {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
  }
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
}

type Reason = 'blocked_address' | 'dns_failed' | 'invalid_url'

/** `{p}` is the port of a real HTTPS receiver listening on 127.0.0.1 (and ::1). */
const CASES: Array<[string, Reason]> = [
  ['https://127.0.0.1:{p}/', 'blocked_address'],
  ['https://127.0.0.2:{p}/', 'blocked_address'],
  ['https://2130706433:{p}/', 'blocked_address'], // decimal
  ['https://0177.0.0.1:{p}/', 'blocked_address'], // octal
  ['https://017700000001:{p}/', 'blocked_address'], // octal, one number
  ['https://0x7f.0.0.1:{p}/', 'blocked_address'], // hex
  ['https://0x7f000001:{p}/', 'blocked_address'], // hex, one number
  ['https://127.1:{p}/', 'blocked_address'], // short
  ['https://127.0.0.1.:{p}/', 'blocked_address'], // trailing dot
  ['https://%31%32%37.0.0.1:{p}/', 'blocked_address'], // percent-encoded
  ['https://\uff11\uff12\uff17.\uff10.\uff10.\uff11:{p}/', 'blocked_address'], // full-width
  ['https://0.0.0.0:{p}/', 'blocked_address'],
  ['https://[::1]:{p}/', 'blocked_address'],
  ['https://[::]:{p}/', 'blocked_address'],
  ['https://[::ffff:127.0.0.1]:{p}/', 'blocked_address'], // IPv4-mapped
  ['https://[::ffff:7f00:1]:{p}/', 'blocked_address'], // IPv4-mapped, hex
  ['https://[::127.0.0.1]:{p}/', 'blocked_address'], // IPv4-compatible
  ['https://[64:ff9b::127.0.0.1]:{p}/', 'blocked_address'], // NAT64 of loopback
  ['https://[2002:7f00:1::1]:{p}/', 'blocked_address'], // 6to4 of loopback
  ['https://10.0.0.1:{p}/', 'blocked_address'],
  ['https://172.16.5.4:{p}/', 'blocked_address'],
  ['https://192.168.1.1:{p}/', 'blocked_address'],
  ['https://169.254.1.1:{p}/', 'blocked_address'],
  ['https://100.64.0.1:{p}/', 'blocked_address'], // CGNAT
  ['https://[fe80::1]:{p}/', 'blocked_address'],
  ['https://[fd12:3456::1]:{p}/', 'blocked_address'], // ULA
  ['https://[ff02::1]:{p}/', 'blocked_address'], // multicast
  ['https://224.0.0.1:{p}/', 'blocked_address'],
  ['https://255.255.255.255:{p}/', 'blocked_address'],
  ['https://192.0.2.1:{p}/', 'blocked_address'], // documentation
  ['https://240.0.0.1:{p}/', 'blocked_address'], // reserved
  ['https://169.254.169.254:{p}/', 'blocked_address'], // metadata
  ['https://2852039166:{p}/', 'blocked_address'], // metadata, decimal
  ['https://[::ffff:a9fe:a9fe]:{p}/', 'blocked_address'], // metadata, mapped
  ['https://[fd00:ec2::254]:{p}/', 'blocked_address'], // AWS IMDS over IPv6
  ['https://100.100.100.200:{p}/', 'blocked_address'], // Alibaba metadata
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
  ['https://rfc1918.test:{p}/', 'blocked_address'],
  ['https://empty.test:{p}/', 'dns_failed'],
  ['https://no-such-host.test:{p}/', 'dns_failed'],
  ['http://127.0.0.1:{p}/', 'invalid_url'],
  ['http://receiver.test:{p}/', 'invalid_url'],
  ['https://user:secret@localhost:{p}/', 'invalid_url'],
  ['file:///etc/passwd', 'invalid_url'],
  ['gopher://127.0.0.1:{p}/_', 'invalid_url'],
  ['https://256.0.0.1:{p}/', 'invalid_url'],
  ['not a url', 'invalid_url'],
]

describeEachDatabase(
  'webhook URLs: the SSRF table at registration, and again at delivery',
  (database) => {
    let t: WebhookTestApp
    let r: RoutedReceiver
    let tenant: { tenantId: string; testKey: string; liveKey: string }

    before(async () => {
      r = await startRoutedReceiver()
      // No allowlist here: loopback is as forbidden as in production.
      t = await createWebhookTestApp(database(), {
        webhooks: { allowAddresses: [], resolve: resolver, timeoutMs: 3000 },
      })
      tenant = await t.createTenant()
    })
    after(async () => {
      await t.close()
      await r.close()
    })

    test('the table has at least 40 addresses and spellings', () => {
      assert.ok(CASES.length >= 40, `${CASES.length}`)
    })

    test('every blocked URL is refused at registration with a clear message', async () => {
      for (const [template, reason] of CASES) {
        const url = template.replace('{p}', String(r.receiver.port))
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/webhooks',
          headers: bearer(tenant.testKey),
          payload: { url, secret: SECRET, eventScope: 'all' },
        })
        assert.equal(res.statusCode, 422, `${template}: ${res.body}`)
        const { error } = res.json()
        assert.equal(error.code, 'invalid_webhook_url', template)
        assert.equal(error.details.reason, reason, template)
        assert.match(error.message, /^The webhook URL is refused: .+/)
      }
      const endpoints = await t.ctx.db.kysely.selectFrom('webhook_endpoints').select('id').execute()
      assert.deepEqual(endpoints, [])
      assert.equal(r.receiver.hits.length, 0, 'nothing reached the loopback receiver')
    })

    test('a name that later resolves to loopback (rebinding) is checked again when delivering', async () => {
      rebindCalls = 0
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: bearer(tenant.testKey),
        payload: {
          url: `https://rebind.test:${r.receiver.port}/hook`,
          secret: SECRET,
          eventScope: 'all',
        },
      })
      assert.equal(res.statusCode, 201, 'registration saw a public address')
      await recordAuditEvent(
        t.ctx.db.kysely,
        { tenantId: tenant.tenantId, mode: 'test' },
        {
          type: 'package.archived',
          entityType: 'package',
          entityId: 'pkg_x',
          occurredAt: new Date(Date.now() + 1000).toISOString(),
        },
      )
      await t.ctx.services.webhooks.deliveries.fanOut()
      await t.worker().runOnce()
      const [delivery] = await t.ctx.db.kysely
        .selectFrom('webhook_deliveries')
        .selectAll()
        .execute()
      assert.equal(delivery?.status, 'failed')
      assert.match(
        String(delivery?.last_error),
        /^blocked_address: rebind\.test resolves to a loopback/,
      )
      assert.ok(
        !String(delivery?.last_error).includes('127.0.0.1'),
        'the internal address is not shown',
      )
      assert.equal(r.receiver.hits.length, 0)
    })
  },
)
