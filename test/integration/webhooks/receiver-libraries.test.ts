import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { after, before, test } from 'node:test'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import { Webhook as SvixWebhook } from 'svix'
import { recordAuditEvent } from '../../../src/modules/events/audit-event.repository.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  createWebhookTestApp,
  type RoutedReceiver,
  startRoutedReceiver,
  type WebhookTestApp,
} from './webhook-test-app.ts'

const PLAIN_16 = 'sixteen-chars-ok'
const SVIX_STYLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

type Headers = Record<string, string>

function flatHeaders(req: IncomingMessage): Headers {
  return Object.fromEntries(
    Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
  )
}

/** One-line verifications as docs/webhooks.md shows them, with the secret exactly as registered. */
const LIBRARIES: Record<string, (secret: string, body: string, headers: Headers) => void> = {
  standardwebhooks: (secret, body, headers) => {
    const wh = secret.startsWith('whsec_')
      ? new StandardWebhook(secret)
      : new StandardWebhook(secret, { format: 'raw' })
    wh.verify(body, headers)
  },
  svix: (secret, body, headers) => {
    const wh = secret.startsWith('whsec_')
      ? new SvixWebhook(secret)
      : new SvixWebhook(secret, { format: 'raw' })
    wh.verify(body, headers)
  },
  // What docs/webhooks.md told receivers to do before whsec_ secrets were decoded: still works.
  'standardwebhooks, earlier docs': (secret, body, headers) => {
    new StandardWebhook(Buffer.from(secret).toString('base64')).verify(body, headers)
  },
}

/** What a receiver written from the spec's text alone does: one `sha256=<hex>`, constant time. */
function specVerifies(secret: string, body: string, headers: Headers): boolean {
  const header = headers['x-connect-signature'] ?? ''
  const match = /^sha256=([0-9a-f]{64})$/.exec(header)
  if (!match?.[1]) return false
  const expected = createHmac('sha256', secret).update(body).digest()
  return timingSafeEqual(Buffer.from(match[1], 'hex'), expected)
}

interface Verdict {
  path: string
  phase: string
  /** `library: secret` → verified or the library's error. */
  results: Map<string, true | string>
  spec: Map<string, boolean>
}

describeEachDatabase('receivers verify deliveries with the secret as registered', (database) => {
  // Standard Webhooks libraries compare `webhook-timestamp` with the real clock (5 minutes'
  // tolerance), so this clock starts at the real time and moves at most two minutes ahead.
  const clock = new ManualClock(new Date())
  let t: WebhookTestApp
  let r: RoutedReceiver
  let tenant: { tenantId: string; testKey: string }
  const verdicts: Verdict[] = []
  let phase = 'before'
  /** Per path, the secrets each receiver is checked with in the current phase. */
  const secretsOf = new Map<string, string[]>()

  before(async () => {
    r = await startRoutedReceiver()
    t = await createWebhookTestApp(database(), { clock })
    tenant = await t.createTenant()
  })
  after(async () => {
    await t.close()
    await r.close()
  })

  function libraryRoute(path: string) {
    r.route(path, (req, res, body) => {
      const headers = flatHeaders(req)
      const verdict: Verdict = { path, phase, results: new Map(), spec: new Map() }
      for (const secret of secretsOf.get(path) ?? []) {
        for (const [name, verify] of Object.entries(LIBRARIES)) {
          try {
            verify(secret, body, headers)
            verdict.results.set(`${name}: ${secret}`, true)
          } catch (err) {
            verdict.results.set(`${name}: ${secret}`, String(err))
          }
        }
        verdict.spec.set(secret, specVerifies(secret, body, headers))
      }
      verdicts.push(verdict)
      res.writeHead(204).end()
    })
  }

  async function api(method: 'POST' | 'GET', url: string, payload?: object) {
    const res = await t.app.inject({ method, url, headers: bearer(tenant.testKey), payload })
    assert.ok(res.statusCode < 300, res.body)
    return res.json()
  }

  async function deliverOneEvent() {
    clock.advance(1000)
    await recordAuditEvent(
      t.ctx.db.kysely,
      { tenantId: tenant.tenantId, mode: 'test' },
      {
        type: 'package.archived',
        entityType: 'package',
        entityId: 'pkg_libs',
        occurredAt: clock.now().toISOString(),
      },
    )
    const before = verdicts.length
    await t.ctx.services.webhooks.deliveries.fanOut()
    await t.worker().runOnce()
    return verdicts.slice(before)
  }

  function assertVerified(got: Verdict[], path: string, secrets: string[], spec: string) {
    const mine = got.filter((v) => v.path === path)
    assert.equal(mine.length, 1, `${path} got one delivery in phase ${phase}`)
    const [v] = mine
    assert.ok(v)
    for (const secret of secrets) {
      for (const name of Object.keys(LIBRARIES)) {
        assert.equal(
          v.results.get(`${name}: ${secret}`),
          true,
          `${phase} ${path} ${name} ${secret}`,
        )
      }
    }
    assert.equal(v.spec.get(spec), true, `${phase} ${path}: the spec header verifies with ${spec}`)
  }

  test('generated, whsec_ and plain secrets, before, during and after a rotation overlap', async () => {
    // E1: plain → generated; E2: generated → whsec_; E3: whsec_ → plain (every kind on both sides)
    const e1 = await api('POST', '/api/v1/webhooks', {
      url: r.url('/e1'),
      secret: PLAIN_16,
      eventScope: 'all',
    })
    const e2 = await api('POST', '/api/v1/webhooks', {
      url: r.url('/e2'),
      secret: PLAIN_16,
      eventScope: 'all',
    })
    const e3 = await api('POST', '/api/v1/webhooks', {
      url: r.url('/e3'),
      secret: SVIX_STYLE,
      eventScope: 'all',
    })
    // E2 starts from a generated secret: rotated to one with no overlap.
    const generatedFirst = (
      await api('POST', `/api/v1/webhooks/${e2.webhook.id}/rotate-secret`, { overlapSeconds: 0 })
    ).secret as string
    assert.match(generatedFirst, /^whsec_/)
    for (const path of ['/e1', '/e2', '/e3']) libraryRoute(path)
    const oldOf = { '/e1': PLAIN_16, '/e2': generatedFirst, '/e3': SVIX_STYLE }

    phase = 'before'
    for (const [path, secret] of Object.entries(oldOf)) secretsOf.set(path, [secret])
    let got = await deliverOneEvent()
    for (const [path, secret] of Object.entries(oldOf)) assertVerified(got, path, [secret], secret)

    const overlap = { overlapSeconds: 120 }
    const rotate = async (id: string, body: object) =>
      (await api('POST', `/api/v1/webhooks/${id}/rotate-secret`, { ...overlap, ...body }))
        .secret as string
    const newOf = {
      '/e1': await rotate(e1.webhook.id, {}),
      '/e2': await rotate(e2.webhook.id, { secret: SVIX_STYLE }),
      '/e3': await rotate(e3.webhook.id, { secret: PLAIN_16 }),
    }
    assert.match(newOf['/e1'], /^whsec_[A-Za-z0-9+/]{43}=$/)

    phase = 'during'
    for (const path of Object.keys(oldOf) as Array<keyof typeof oldOf>) {
      secretsOf.set(path, [oldOf[path], newOf[path]])
    }
    got = await deliverOneEvent()
    for (const path of Object.keys(oldOf) as Array<keyof typeof oldOf>) {
      // Libraries: either secret alone verifies. The spec header: the previous one.
      assertVerified(got, path, [oldOf[path], newOf[path]], oldOf[path])
    }

    phase = 'after'
    clock.advance(121_000)
    for (const path of Object.keys(newOf) as Array<keyof typeof newOf>) {
      secretsOf.set(path, [newOf[path], oldOf[path]])
    }
    got = await deliverOneEvent()
    for (const path of Object.keys(newOf) as Array<keyof typeof newOf>) {
      assertVerified(got, path, [newOf[path]], newOf[path])
      const v = got.find((x) => x.path === path)
      assert.notEqual(v?.results.get(`svix: ${oldOf[path]}`), true, 'the old secret is retired')
      assert.equal(v?.spec.get(oldOf[path]), false)
    }
  })
})

describeEachDatabase('a receiver written from the spec alone, through a rotation', (database) => {
  const clock = new ManualClock('2026-03-01T10:00:00.000Z')
  let t: WebhookTestApp
  let r: RoutedReceiver
  let key: string
  let tenantId: string
  /** The one secret the receiver is configured with; it answers 401 when the header differs. */
  let configured = PLAIN_16
  const answers: number[] = []

  before(async () => {
    r = await startRoutedReceiver()
    t = await createWebhookTestApp(database(), { clock })
    const tenant = await t.createTenant()
    key = tenant.testKey
    tenantId = tenant.tenantId
    r.route('/spec', (req, res, body) => {
      const status = specVerifies(configured, body, flatHeaders(req)) ? 204 : 401
      answers.push(status)
      res.writeHead(status).end()
    })
  })
  after(async () => {
    await t.close()
    await r.close()
  })

  async function deliverEvents(n: number): Promise<number[]> {
    const from = answers.length
    clock.advance(1000)
    for (let i = 0; i < n; i++) {
      await recordAuditEvent(
        t.ctx.db.kysely,
        { tenantId, mode: 'test' },
        {
          type: 'package.archived',
          entityType: 'package',
          entityId: `pkg_${i}`,
          occurredAt: clock.now().toISOString(),
        },
      )
    }
    await t.ctx.services.webhooks.deliveries.fanOut()
    await t.worker().runOnce()
    return answers.slice(from)
  }

  test('every delivery verifies: the old secret during the 24 h overlap, the new one after', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(key),
      payload: { url: r.url('/spec'), secret: PLAIN_16, eventScope: 'packages' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().webhook.id
    assert.deepEqual(await deliverEvents(3), [204, 204, 204])

    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${id}/rotate-secret`,
      headers: bearer(key),
    })
    assert.equal(rotated.statusCode, 200, rotated.body)
    const { secret, webhook } = rotated.json()
    const expires = Date.parse(webhook.previousSecretExpiresAt)
    assert.equal(expires - clock.now().getTime(), 86_400_000, 'the default overlap is 24 h')

    // The receiver has not been touched: through the overlap, everything still verifies.
    assert.deepEqual(await deliverEvents(3), [204, 204, 204])
    clock.set(new Date(expires - 5000))
    assert.deepEqual(await deliverEvents(2), [204, 204])

    // The overlap is over; the receiver now holds the new secret, exactly as returned.
    clock.set(new Date(expires + 1000))
    configured = secret
    assert.deepEqual(await deliverEvents(3), [204, 204, 204])
  })
})
