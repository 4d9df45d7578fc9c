import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { createUser, PASSWORD, type Signed, sessionCookie } from './accounts-helpers.ts'

describeEachDatabase('dashboard sign-in, sessions and CSRF', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let owner: Signed
  const clock = new ManualClock('2026-06-01T08:00:00.000Z')
  let address = 0
  /** Each test its own client address, so the per-address throttle of one does not leak. */
  const nextAddress = () => `10.0.0.${++address}`

  before(async () => {
    t = await createTestApp(database(), { clock })
    tenant = await t.createTenant()
    owner = await createUser(t, tenant.tenantId, 'owner@example.test')
  })
  after(() => t.close())

  const login = (email: string, password: string, remoteAddress = nextAddress(), cookie?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/customer/login',
      payload: { email, password },
      remoteAddress,
      ...(cookie && { headers: { cookie } }),
    })
  const me = (cookie: string) =>
    t.app.inject({ method: 'GET', url: '/api/customer/me', headers: { cookie } })

  test('sign-in sets an HttpOnly SameSite=Lax cookie and a new session id each time', async () => {
    const first = await login(owner.email, PASSWORD)
    assert.equal(first.statusCode, 200, first.body)
    const header = String(first.headers['set-cookie'])
    assert.match(header, /HttpOnly/)
    assert.match(header, /SameSite=Lax/)
    assert.match(header, /Path=\//)
    assert.doesNotMatch(header, /Secure/, 'PUBLIC_URL is http here')
    const cookie = sessionCookie(first.headers['set-cookie'])
    assert.equal((await me(cookie)).json().user.email, owner.email)
    // A cookie planted before sign-in is never promoted: the answer carries another id.
    const again = await login(owner.email, PASSWORD, nextAddress(), 'cp_session=planted')
    assert.notEqual(sessionCookie(again.headers['set-cookie']), 'cp_session=planted')
    assert.notEqual(sessionCookie(again.headers['set-cookie']), cookie)
  })

  test('a wrong password or unknown e-mail is 401 without saying which', async () => {
    const wrong = await login(owner.email, 'not the password')
    const unknown = await login('nobody@example.test', PASSWORD)
    assert.equal(wrong.statusCode, 401)
    assert.equal(unknown.statusCode, 401)
    assert.equal(wrong.json().error.message, unknown.json().error.message)
  })

  test('logout revokes the session at once; the cookie then gets 401', async () => {
    const signed = await login(owner.email, PASSWORD)
    const cookie = sessionCookie(signed.headers['set-cookie'])
    const csrf = signed.json().csrf_token
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/customer/logout',
      headers: { cookie, 'x-csrf-token': csrf },
    })
    assert.equal(out.statusCode, 204)
    assert.equal((await me(cookie)).statusCode, 401)
  })

  test('a session ends after 2 idle hours, and 12 hours after sign-in however active', async () => {
    const cookie = sessionCookie((await login(owner.email, PASSWORD)).headers['set-cookie'])
    clock.advance(2 * 3600_000 - 60_000)
    assert.equal((await me(cookie)).statusCode, 200, 'still within the idle limit')
    clock.advance(2 * 3600_000 - 60_000)
    assert.equal((await me(cookie)).statusCode, 200, 'the request before moved last_seen_at')
    clock.advance(2 * 3600_000)
    assert.equal((await me(cookie)).statusCode, 401, 'idle for 2 hours')

    const busy = sessionCookie((await login(owner.email, PASSWORD)).headers['set-cookie'])
    for (let hour = 0; hour < 11; hour++) {
      clock.advance(3600_000)
      assert.equal((await me(busy)).statusCode, 200)
    }
    clock.advance(3600_000)
    assert.equal((await me(busy)).statusCode, 401, 'the absolute limit')
  })

  test('a state-changing call without the CSRF header, or with a wrong one, is 403', async () => {
    const cookie = sessionCookie((await login(owner.email, PASSWORD)).headers['set-cookie'])
    for (const headers of [{ cookie }, { cookie, 'x-csrf-token': 'wrong' }]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/customer/logout', headers })
      assert.equal(res.statusCode, 403)
      assert.equal(res.json().error.code, 'csrf_failed')
    }
    assert.equal((await me(cookie)).statusCode, 200, 'the refused logout changed nothing')
  })

  test('five failed sign-ins lock the account for the window, even with the right password', async () => {
    const user = await createUser(t, tenant.tenantId, 'throttled@example.test', 'viewer')
    for (let i = 0; i < 5; i++)
      assert.equal((await login(user.email, 'wrong password!')).statusCode, 401)
    const locked = await login(user.email, PASSWORD)
    assert.equal(locked.statusCode, 429)
    assert.ok(Number(locked.headers['retry-after']) > 0)
    clock.advance(15 * 60_000)
    assert.equal((await login(user.email, PASSWORD)).statusCode, 200, 'the next window')
  })

  test('thirty failed sign-ins from one address lock that address for every account', async () => {
    const from = nextAddress()
    for (let i = 0; i < 30; i++)
      assert.equal((await login(`guess${i}@example.test`, 'wrong password!', from)).statusCode, 401)
    assert.equal((await login(owner.email, PASSWORD, from)).statusCode, 429)
    assert.equal((await login(owner.email, PASSWORD)).statusCode, 200, 'another address')
  })

  test('API keys are refused on /api/customer, cookies on /api/v1', async () => {
    for (const headers of [bearer(tenant.testKey), { 'x-api-key': tenant.testKey }]) {
      const res = await t.app.inject({ method: 'GET', url: '/api/customer/packages', headers })
      assert.equal(res.statusCode, 401)
    }
    const withBoth = await t.app.inject({
      method: 'GET',
      url: '/api/customer/me',
      headers: { ...bearer(tenant.testKey), cookie: owner.cookie },
    })
    assert.equal(withBoth.statusCode, 401, 'a key next to a valid cookie is still refused')
    const cookie = sessionCookie((await login(owner.email, PASSWORD)).headers['set-cookie'])
    const v1 = await t.app.inject({ method: 'GET', url: '/api/v1/packages', headers: { cookie } })
    assert.equal(v1.statusCode, 401)
  })

  test('a password change works and signs out the other sessions', async () => {
    const user = await createUser(t, tenant.tenantId, 'changer@example.test', 'admin')
    const other = sessionCookie((await login(user.email, PASSWORD)).headers['set-cookie'])
    const changed = await t.app.inject({
      method: 'POST',
      url: '/api/customer/password',
      headers: { cookie: user.cookie, 'x-csrf-token': user.csrf },
      payload: { current_password: PASSWORD, new_password: 'a new long password' },
    })
    assert.equal(changed.statusCode, 204, changed.body)
    assert.equal((await me(user.cookie)).statusCode, 200, 'this session stays')
    assert.equal((await me(other)).statusCode, 401, 'the other is signed out')
    assert.equal((await login(user.email, PASSWORD)).statusCode, 401)
    assert.equal((await login(user.email, 'a new long password')).statusCode, 200)
    const wrongCurrent = await t.app.inject({
      method: 'POST',
      url: '/api/customer/password',
      headers: { cookie: user.cookie, 'x-csrf-token': user.csrf },
      payload: { current_password: 'not it at all', new_password: 'another long one' },
    })
    assert.equal(wrongCurrent.statusCode, 403)
  })

  test('an owner invites by a one-time link; a viewer cannot invite', async () => {
    const owned = await createUser(t, tenant.tenantId, 'inviter@example.test', 'owner')
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/customer/invites',
      headers: { cookie: owned.cookie, 'x-csrf-token': owned.csrf },
      payload: { email: 'New.Person@Example.test', role: 'viewer' },
    })
    assert.equal(res.statusCode, 201, res.body)
    const link = new URL(res.json().invite_url)
    assert.equal(link.pathname, '/dashboard/')
    const token = link.hash.replace('#invite=', '')
    const accept = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/customer/invites/${token}/accept`,
        payload: { password: 'viewer password' },
      })
    const accepted = await accept()
    assert.equal(accepted.statusCode, 200, accepted.body)
    assert.deepEqual(
      { email: accepted.json().user.email, role: accepted.json().user.role },
      { email: 'new.person@example.test', role: 'viewer' },
    )
    assert.equal(accepted.json().user.tenant_id, tenant.tenantId)
    assert.equal((await accept()).statusCode, 404, 'the link works once')

    const viewer = {
      cookie: sessionCookie(accepted.headers['set-cookie']),
      csrf: accepted.json().csrf_token,
    }
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/customer/invites',
      headers: { cookie: viewer.cookie, 'x-csrf-token': viewer.csrf },
      payload: { email: 'someone@example.test', role: 'owner' },
    })
    assert.equal(refused.statusCode, 403)
  })

  test('with an https PUBLIC_URL the cookie is also Secure', async () => {
    const secure = await createTestApp(database(), {
      env: { PUBLIC_URL: 'https://cp.example.test' },
    })
    try {
      const res = await secure.app.inject({
        method: 'POST',
        url: '/api/customer/login',
        payload: { email: owner.email, password: PASSWORD },
        remoteAddress: nextAddress(),
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.match(String(res.headers['set-cookie']), /; Secure/)
    } finally {
      await secure.close()
    }
  })

  test('the OpenAPI document lists the dashboard operations under their tag and cookie scheme', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/openapi' })).json()
    assert.equal(doc.components.securitySchemes.dashboardSession.in, 'cookie')
    const op = doc.paths['/api/customer/reports/learner-progress'].get
    assert.deepEqual(op.tags, ['dashboard'])
    assert.deepEqual(op.security, [{ dashboardSession: [] }])
    assert.ok(doc.paths['/api/customer/login'].post)
  })
})
