import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { createUser, PASSWORD, type Signed } from './accounts-helpers.ts'

/*
 * Pending invites on the Team page (issue 12): owners and admins list them (never the link) and
 * revoke one so its link stops working; viewers cannot; another tenant never sees them; API keys
 * are refused. Real HTTP on 127.0.0.1.
 */
describeEachDatabase('pending invites', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let base: string
  let owner: Signed
  let admin: Signed
  let viewer: Signed
  let otherOwner: Signed

  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant()
    const other = await t.createTenant()
    owner = await createUser(t, tenant.tenantId, 'owner@invites.test', 'owner')
    admin = await createUser(t, tenant.tenantId, 'admin@invites.test', 'admin')
    viewer = await createUser(t, tenant.tenantId, 'viewer@invites.test', 'viewer')
    otherOwner = await createUser(t, other.tenantId, 'owner@other-invites.test', 'owner')
    base = await t.app.listen({ host: '127.0.0.1', port: 0 })
  })
  after(() => t.close())

  const call = (who: Signed, method: string, path: string, body?: object) =>
    fetch(`${base}/api/customer${path}`, {
      method,
      headers: {
        cookie: who.cookie,
        'x-csrf-token': who.csrf,
        ...(body && { 'content-type': 'application/json' }),
      },
      ...(body && { body: JSON.stringify(body) }),
    })
  const invite = async (who: Signed, email: string, role: string) => {
    const res = await call(who, 'POST', '/invites', { email, role })
    assert.equal(res.status, 201)
    const url = new URL(((await res.json()) as { invite_url: string }).invite_url)
    return url.hash.replace('#invite=', '')
  }
  interface Listed {
    id: string
    email: string
    role: string
    created_at: string
    expires_at: string
  }
  const list = async (who: Signed): Promise<Listed[]> => {
    const res = await call(who, 'GET', '/invites')
    assert.equal(res.status, 200)
    return ((await res.json()) as { invites: Listed[] }).invites
  }
  const accept = (token: string) =>
    fetch(`${base}/api/customer/invites/${token}/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: PASSWORD }),
    })

  test('an owner lists pending invites without their links and revokes one', async () => {
    const token = await invite(owner, 'new@invites.test', 'viewer')
    await invite(owner, 'boss@invites.test', 'owner')
    const listed = await list(owner)
    const entry = listed.find((i) => i.email === 'new@invites.test')
    assert.ok(entry, JSON.stringify(listed))
    assert.equal(entry.role, 'viewer')
    assert.ok(Date.parse(entry.expires_at) > Date.parse(entry.created_at))
    assert.ok(!JSON.stringify(listed).includes(token), 'the link token is never listed')
    assert.deepEqual(listed.map((i) => i.email).sort(), ['boss@invites.test', 'new@invites.test'])

    assert.equal((await call(owner, 'DELETE', `/invites/${entry.id}`)).status, 204)
    assert.ok(!(await list(owner)).some((i) => i.email === 'new@invites.test'))
    const refused = await accept(token)
    assert.equal(refused.status, 404, 'the revoked link no longer signs up')
    assert.equal((await call(owner, 'DELETE', `/invites/${entry.id}`)).status, 404)
  })

  test('an accepted invite is no longer pending', async () => {
    const token = await invite(owner, 'joins@invites.test', 'admin')
    assert.equal((await accept(token)).status, 200)
    assert.ok(!(await list(owner)).some((i) => i.email === 'joins@invites.test'))
  })

  test("an admin sees and revokes admins' and viewers' invites, not owners'", async () => {
    await invite(admin, 'by-admin@invites.test', 'admin')
    const seen = await list(admin)
    assert.ok(seen.some((i) => i.email === 'by-admin@invites.test'))
    assert.ok(!seen.some((i) => i.role === 'owner'), 'owner invites are hidden from admins')
    const ownerInvite = (await list(owner)).find((i) => i.role === 'owner')
    assert.ok(ownerInvite)
    assert.equal((await call(admin, 'DELETE', `/invites/${ownerInvite.id}`)).status, 403)
    const mine = seen.find((i) => i.email === 'by-admin@invites.test')
    assert.ok(mine)
    assert.equal((await call(admin, 'DELETE', `/invites/${mine.id}`)).status, 204)
  })

  test('a viewer can neither list nor revoke', async () => {
    const [any] = await list(owner)
    assert.ok(any)
    assert.equal((await call(viewer, 'GET', '/invites')).status, 403)
    assert.equal((await call(viewer, 'DELETE', `/invites/${any.id}`)).status, 403)
    assert.ok((await list(owner)).some((i) => i.id === any.id))
  })

  test("tenant B never sees or revokes tenant A's invites", async () => {
    const token = await invite(owner, 'private@invites.test', 'viewer')
    const entry = (await list(owner)).find((i) => i.email === 'private@invites.test')
    assert.ok(entry)
    assert.deepEqual(await list(otherOwner), [])
    assert.equal((await call(otherOwner, 'DELETE', `/invites/${entry.id}`)).status, 404)
    assert.ok((await list(owner)).some((i) => i.id === entry.id))
    assert.equal((await accept(token)).status, 200, 'the link still works')
  })

  test('API keys are refused on the invite routes', async () => {
    const [any] = await list(owner)
    for (const [method, path] of [
      ['GET', '/invites'],
      ['DELETE', `/invites/${any?.id ?? 'x'}`],
    ] as const) {
      const res = await fetch(`${base}/api/customer${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.liveKey}` },
      })
      assert.equal(res.status, 401, `${method} ${path}`)
    }
  })
})
