import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { createUser, type Signed } from './accounts-helpers.ts'

/*
 * The roles of /api/customer (issue 12): a viewer changes nothing, an admin manages the users who
 * are not owners, only owners make or unmake owners, and the tenant never loses its last owner,
 * even to two requests at once (real HTTP on 127.0.0.1, so they truly overlap).
 */
describeEachDatabase('dashboard roles', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let base: string
  let admin: Signed
  let viewer: Signed

  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant()
    admin = await createUser(t, tenant.tenantId, 'admin@roles.test', 'admin')
    viewer = await createUser(t, tenant.tenantId, 'viewer@roles.test', 'viewer')
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
  const owners = async () =>
    (
      await t.ctx.db.kysely
        .selectFrom('dashboard_users')
        .select('id')
        .where('tenant_id', '=', tenant.tenantId)
        .where('role', '=', 'owner')
        .execute()
    ).map((r) => r.id)

  test('two owners demoting (or removing) each other at once leave one owner', async () => {
    for (let round = 0; round < 6; round++) {
      const a = await createUser(t, tenant.tenantId, `a${round}@roles.test`, 'owner')
      const b = await createUser(t, tenant.tenantId, `b${round}@roles.test`, 'owner')
      // Only these two are owners: earlier rounds' survivors are demoted first.
      for (const id of await owners())
        if (id !== a.userId && id !== b.userId)
          assert.equal((await call(a, 'PATCH', `/users/${id}`, { role: 'viewer' })).status, 204)
      const remove = round % 2 === 1
      const [ab, ba] = await Promise.all([
        remove
          ? call(a, 'DELETE', `/users/${b.userId}`)
          : call(a, 'PATCH', `/users/${b.userId}`, { role: 'admin' }),
        remove
          ? call(b, 'DELETE', `/users/${a.userId}`)
          : call(b, 'PATCH', `/users/${a.userId}`, { role: 'admin' }),
      ])
      const statuses = [ab.status, ba.status].sort()
      assert.equal(statuses[0], 204, `one change goes through (${statuses})`)
      assert.ok(
        [401, 403, 409].includes(statuses[1] as number),
        `the other is refused (${statuses})`,
      )
      assert.equal((await owners()).length, 1, `round ${round}: exactly one owner left`)
    }
  })

  test('an admin manages admins and viewers, never owners', async () => {
    const [owner] = await owners()
    const invite = await call(admin, 'POST', '/invites', { email: 'x@roles.test', role: 'viewer' })
    assert.equal(invite.status, 201)
    const temp = await createUser(t, tenant.tenantId, 'temp@roles.test', 'viewer')
    assert.equal(
      (await call(admin, 'PATCH', `/users/${temp.userId}`, { role: 'admin' })).status,
      204,
    )
    assert.equal((await call(admin, 'DELETE', `/users/${temp.userId}`)).status, 204)
    const refused = [
      await call(admin, 'POST', '/invites', { email: 'y@roles.test', role: 'owner' }),
      await call(admin, 'PATCH', `/users/${viewer.userId}`, { role: 'owner' }),
      await call(admin, 'PATCH', `/users/${owner}`, { role: 'admin' }),
      await call(admin, 'DELETE', `/users/${owner}`),
    ]
    assert.deepEqual(
      refused.map((r) => r.status),
      [403, 403, 403, 403],
    )
    assert.deepEqual(await owners(), [owner])
  })

  test('a viewer changes nothing: every state-changing /api/customer operation refuses', async () => {
    const doc = (await (await fetch(`${base}/api/docs/openapi`)).json()) as {
      paths: Record<string, Record<string, unknown>>
    }
    // A viewer's own sign-in and password are theirs to change.
    const own = new Set([
      'POST /api/customer/login',
      'POST /api/customer/logout',
      'POST /api/customer/password',
      'POST /api/customer/invites/{token}/accept',
    ])
    const tried: string[] = []
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/customer/')) continue
      for (const method of Object.keys(ops)) {
        const op = `${method.toUpperCase()} ${path}`
        if (['get', 'head', 'options', 'parameters'].includes(method) || own.has(op)) continue
        const url = path.replace('/api/customer', '').replace(/\{[^}]+\}/g, 'x_1')
        const res = await call(viewer, method.toUpperCase(), url, {})
        tried.push(`${op} → ${res.status}`)
        assert.ok(
          res.status >= 400 && res.status < 500 && res.status !== 401,
          `${op} answered ${res.status} to a viewer`,
        )
      }
    }
    assert.ok(tried.length >= 10, tried.join('\n'))
    assert.ok(
      tried.filter((line) => line.endsWith('→ 403')).length >= tried.length / 2,
      `most are refused by role before anything else:\n${tried.join('\n')}`,
    )
  })
})
