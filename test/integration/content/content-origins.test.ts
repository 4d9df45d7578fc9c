/**
 * One content origin per tenant (docs/content-origins.md): launch, content and runtime tokens
 * are bound to the tenant's origin `{label}.{CONTENT_URL host}`; another tenant's host or the
 * bare CONTENT_URL host refuses them. Node cannot resolve `*.localhost`, so requests go to the
 * app directly and name the host in the `Host` header, as a browser would.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { loadConfig } from '../../../src/config.ts'
import { ConfigError } from '../../../src/config-variables.ts'
import { tenantLabel } from '../../../src/shared/content-origin.ts'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, uploadGolf } from '../sessions/runtime-helpers.ts'

const BARE = 'localhost:18081'

describeEachDatabase('tenant content origins: tokens are bound to their host', (database) => {
  let t: TestApp
  let acme: TestTenant
  let globex: TestTenant
  let acmeHost: string
  let globexHost: string
  before(async () => {
    t = await createTestApp(database(), {
      env: { CONTENT_URL: `http://${BARE}`, CONTENT_ORIGINS: 'tenant' },
    })
    acme = await t.createTenant('growth')
    globex = await t.createTenant('growth')
    acmeHost = `${tenantLabel(acme.tenantId)}.${BARE}`
    globexHost = `${tenantLabel(globex.tenantId)}.${BARE}`
  })
  after(() => t.close())

  /** A launch of the golf course for `tenant`; its URL's path, token and host. */
  async function launched(tenant: TestTenant) {
    const pkg = await uploadGolf(t, tenant.testKey, 'singlescobasic.zip')
    const answer = await launch(t, tenant.testKey, pkg, 'learner-1')
    const url = new URL(answer.launch_url)
    return {
      sessionId: answer.session_id,
      host: url.host,
      path: url.pathname + url.search,
      token: url.searchParams.get('token') as string,
    }
  }

  const start = (sessionId: string, token: string, host: string) =>
    t.content.inject({
      method: 'POST',
      url: `/runtime/sessions/${sessionId}/start`,
      headers: { host },
      payload: { token },
    })

  test('labels are stable, lower-case DNS labels, different per tenant', () => {
    assert.match(tenantLabel(acme.tenantId), /^t[a-z2-7]{20}$/)
    assert.equal(tenantLabel(acme.tenantId), tenantLabel(acme.tenantId))
    assert.notEqual(tenantLabel(acme.tenantId), tenantLabel(globex.tenantId))
  })

  test('the launch URL is on the tenant origin; the page is refused on another tenant and redirected from the bare host', async () => {
    const l = await launched(acme)
    assert.equal(l.host, acmeHost)
    const page = (host: string) => t.content.inject({ url: l.path, headers: { host } })
    assert.equal((await page(acmeHost)).statusCode, 200)
    assert.equal((await page(globexHost)).statusCode, 403)
    const moved = await page(BARE)
    assert.equal(moved.statusCode, 302)
    assert.equal(moved.headers.location, `http://${acmeHost}${l.path}`)
  })

  test('start, deliveries, commits and content files answer only on the tenant origin', async () => {
    const l = await launched(acme)
    const lookAlikes = [
      globexHost,
      BARE,
      `evil.${acmeHost}`,
      '127.0.0.1:18081',
      `${acmeHost.split(':')[0]}:18082`,
      `x@${acmeHost}`,
      `${globexHost}@${acmeHost}`,
    ]
    for (const host of lookAlikes) {
      const res = await start(l.sessionId, l.token, host)
      assert.equal(res.statusCode, 401, `${host}: ${res.body}`)
    }
    const res = await start(l.sessionId, l.token, acmeHost)
    assert.equal(res.statusCode, 200, res.body)
    const started = res.json()
    const runtime = { authorization: `Bearer ${started.runtime_token}` }
    const item = started.items.find((i: { launchable: boolean }) => i.launchable)

    // The runtime token of Acme's session, presented where Globex's course runs.
    for (const url of ['deliveries', 'commits']) {
      const wrong = await t.content.inject({
        method: 'POST',
        url: `/runtime/sessions/${l.sessionId}/${url}`,
        headers: { ...runtime, host: globexHost },
        payload: {
          item_id: item.id,
          delivery_id: 'scd_x',
          delta: { seq: 1, fromSeq: 0, values: {} },
        },
      })
      assert.equal(wrong.statusCode, 401, `${url}: ${wrong.body}`)
    }

    const file = `${started.content_base}${String(item.href).split('?')[0]}`
    const get = (host: string) => t.content.inject({ url: file, headers: { host } })
    const own = await get(acmeHost)
    assert.equal(own.statusCode, 200, own.body)
    for (const host of [globexHost, BARE]) {
      const res = await get(host)
      assert.equal(res.statusCode, 403, host)
      assert.equal(res.json().error.details.reason, 'wrong_origin')
    }
  })

  test("one tenant's launch token cannot start on the other's host, even for its own session id", async () => {
    const a = await launched(acme)
    const g = await launched(globex)
    assert.equal((await start(a.sessionId, a.token, globexHost)).statusCode, 401)
    assert.equal((await start(g.sessionId, a.token, globexHost)).statusCode, 401)
    assert.equal((await start(g.sessionId, g.token, globexHost)).statusCode, 200)
  })
})

test('configuration: tenant origins need a host name; single is the explicit opt-out', () => {
  const base = { SECRET_KEY: 'x'.repeat(32) }
  assert.equal(loadConfig(base).contentUrl, 'http://localhost:8081')
  assert.equal(loadConfig(base).contentOrigins, 'tenant')
  assert.throws(
    () => loadConfig({ ...base, CONTENT_URL: 'http://127.0.0.1:8081' }),
    (err: unknown) => err instanceof ConfigError && err.variable === 'CONTENT_URL',
  )
  assert.throws(
    () => loadConfig({ ...base, CONTENT_ORIGINS: 'per-package' }),
    (err: unknown) => err instanceof ConfigError && err.variable === 'CONTENT_ORIGINS',
  )
  const single = loadConfig({
    ...base,
    CONTENT_URL: 'http://127.0.0.1:8081',
    CONTENT_ORIGINS: 'single',
  })
  assert.equal(single.contentOrigins, 'single')
})
