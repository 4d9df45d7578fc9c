import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { createUser, type Signed } from './accounts-helpers.ts'

describeEachDatabase('dashboard packages: upload, detail, archive/restore, test launch', (db) => {
  let t: TestApp
  let admin: Signed
  let viewer: Signed
  let outsider: Signed

  before(async () => {
    t = await createTestApp(db())
    const a = await t.createTenant()
    const b = await t.createTenant()
    admin = await createUser(t, a.tenantId, 'admin@p.test', 'admin')
    viewer = await createUser(t, a.tenantId, 'viewer@p.test', 'viewer')
    outsider = await createUser(t, b.tenantId, 'owner@p.test', 'owner')
  })
  after(() => t.close())

  const upload = (who: Signed, mode = 'live') => {
    const { payload, headers } = multipartFile(fixture('scorm', 'golf', 'singlescobasic.zip'))
    return t.app.inject({
      method: 'POST',
      url: `/api/customer/packages/upload?mode=${mode}`,
      headers: { ...headers, cookie: who.cookie, 'x-csrf-token': who.csrf },
      payload,
    })
  }
  const call = (who: Signed, method: 'GET' | 'POST', url: string) =>
    t.app.inject({
      method,
      url: `/api/customer${url}`,
      headers: { cookie: who.cookie, ...(method !== 'GET' && { 'x-csrf-token': who.csrf }) },
    })

  test('an admin uploads into the chosen mode, reads, launches, archives and restores', async () => {
    const res = await upload(admin)
    assert.equal(res.statusCode, 201, res.body)
    const { package: pkg, versions } = res.json()
    assert.equal(versions[0].uploaded_by, 'admin@p.test')
    const listed = await call(viewer, 'GET', '/packages?mode=live')
    assert.deepEqual(
      listed.json().packages.map((p: { id: string }) => p.id),
      [pkg.id],
    )
    assert.equal((await call(viewer, 'GET', `/packages/${pkg.id}`)).statusCode, 404)
    const detail = await call(viewer, 'GET', `/packages/${pkg.id}?mode=live`)
    assert.equal(detail.statusCode, 200, detail.body)
    assert.deepEqual(detail.json().runtime_warnings, [])

    const launch = await call(admin, 'POST', `/packages/${pkg.id}/test-launch?mode=live`)
    assert.equal(launch.statusCode, 200, launch.body)
    assert.equal(launch.json().learner_id, 'dashboard:admin@p.test')
    assert.match(launch.json().launch_url, /^http/)

    const archived = await call(admin, 'POST', `/packages/${pkg.id}/archive?mode=live`)
    assert.equal(archived.json().package.status, 'archived')
    const restored = await call(admin, 'POST', `/packages/${pkg.id}/restore?mode=live`)
    assert.equal(restored.json().package.status, 'active')
    assert.equal((await call(outsider, 'GET', `/packages/${pkg.id}?mode=live`)).statusCode, 404)
  })

  test('a viewer cannot upload, archive or launch', async () => {
    assert.equal((await upload(viewer)).statusCode, 403)
    const made = (await upload(admin, 'test')).json().package.id
    for (const action of ['archive', 'test-launch']) {
      const res = await call(viewer, 'POST', `/packages/${made}/${action}`)
      assert.equal(res.statusCode, 403, `${action}: ${res.body}`)
    }
    const still = await call(viewer, 'GET', `/packages/${made}`)
    assert.equal(still.json().package.status, 'active')
  })
})
