import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import type { LiveServer } from '../../e2e/helpers/live-server.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  type DashboardUser,
  request,
  signedInUser,
  startLiveServer,
} from './customer-http.helper.ts'

interface Credential {
  id: string
  key: string
  label: string
  scope: string
  mode: string
  revoked_at: string | null
}
type Created = { credential: Credential; secret: string; endpoint: string }
type List = { credentials: Credential[]; endpoint: string }

/** A statement POSTed to /xapi/statements with the credential, as content would send it. */
async function postStatement(endpoint: string, key: string, secret: string) {
  const res = await fetch(`${endpoint}statements`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`,
      'content-type': 'application/json',
      'x-experience-api-version': '1.0.3',
    },
    body: JSON.stringify({
      id: randomUUID(),
      actor: { mbox: 'mailto:learner@example.test', name: 'Learner' },
      verb: {
        id: 'http://adlnet.gov/expapi/verbs/experienced',
        display: { 'en-US': 'experienced' },
      },
      object: { id: 'https://example.test/activities/intro' },
    }),
  })
  await res.arrayBuffer()
  return res.status
}

describeEachDatabase('dashboard LRS credentials over HTTP', (db) => {
  let server: LiveServer
  let owner: DashboardUser
  let admin: DashboardUser
  let viewer: DashboardUser
  let outsider: DashboardUser
  let testKey: string

  before(async () => {
    server = await startLiveServer(db())
    const a = await server.t.createTenant()
    const b = await server.t.createTenant()
    testKey = a.testKey
    owner = await signedInUser(server, a.tenantId, 'owner@l.test', 'owner')
    admin = await signedInUser(server, a.tenantId, 'admin@l.test', 'admin')
    viewer = await signedInUser(server, a.tenantId, 'viewer@l.test', 'viewer')
    outsider = await signedInUser(server, b.tenantId, 'owner@other.test', 'owner')
  })
  after(() => server.close())

  test('an owner creates a credential (secret once) that works on /xapi until revoked', async () => {
    const made = await owner.call<Created>('POST', '/lrs-credentials', {
      label: 'Storyline course',
      scope: 'all',
    })
    assert.equal(made.status, 201, JSON.stringify(made.json))
    const { credential, secret, endpoint } = made.json
    assert.equal(endpoint, `${server.apiUrl}/xapi/`)
    assert.equal(credential.mode, 'test')
    assert.ok(secret.length >= 32)

    const listed = await viewer.call<List>('GET', '/lrs-credentials')
    assert.equal(listed.json.endpoint, endpoint)
    assert.deepEqual(
      listed.json.credentials.map((c) => [c.id, c.label, c.revoked_at]),
      [[credential.id, 'Storyline course', null]],
    )
    assert.ok(!JSON.stringify(listed.json).includes(secret), 'the secret is never listed')

    assert.equal(await postStatement(endpoint, credential.key, secret), 200)
    const revoked = await owner.call('DELETE', `/lrs-credentials/${credential.id}`)
    assert.equal(revoked.status, 204)
    assert.equal(await postStatement(endpoint, credential.key, secret), 401)
    const after = await viewer.call<List>('GET', '/lrs-credentials')
    assert.ok(after.json.credentials[0]?.revoked_at)
    assert.equal((await owner.call('DELETE', `/lrs-credentials/${credential.id}`)).status, 404)
  })

  test('a read-only scope cannot write statements', async () => {
    const made = await owner.call<Created>('POST', '/lrs-credentials', { scope: 'statements/read' })
    const { credential, secret, endpoint } = made.json
    assert.equal(credential.scope, 'statements/read')
    assert.equal(await postStatement(endpoint, credential.key, secret), 403)
  })

  test('viewers and admins cannot create or revoke credentials (owners only)', async () => {
    const id = (await owner.call<Created>('POST', '/lrs-credentials', { label: 'Kept' })).json
      .credential.id
    for (const who of [viewer, admin]) {
      assert.equal((await who.call('POST', '/lrs-credentials', { label: 'x' })).status, 403)
      assert.equal((await who.call('DELETE', `/lrs-credentials/${id}`)).status, 403)
    }
    const listed = await viewer.call<List>('GET', '/lrs-credentials')
    const kept = listed.json.credentials.find((c) => c.id === id)
    assert.equal(kept?.revoked_at, null)
    assert.equal(listed.json.credentials.filter((c) => c.label === 'x').length, 0)
  })

  test('tenant B and the other mode never see or revoke tenant A’s credentials', async () => {
    const { credential } = (await owner.call<Created>('POST', '/lrs-credentials?mode=live', {}))
      .json
    assert.equal(credential.mode, 'live')
    assert.ok(credential.key.startsWith('xk_live_'))
    const inTest = await owner.call<List>('GET', '/lrs-credentials?mode=test')
    assert.ok(!inTest.json.credentials.some((c) => c.id === credential.id))
    assert.equal((await owner.call('DELETE', `/lrs-credentials/${credential.id}`)).status, 404)
    const theirs = await outsider.call<List>('GET', '/lrs-credentials?mode=live')
    assert.deepEqual(theirs.json.credentials, [])
    const stolen = await outsider.call('DELETE', `/lrs-credentials/${credential.id}?mode=live`)
    assert.equal(stolen.status, 404)
    const still = await owner.call<List>('GET', '/lrs-credentials?mode=live')
    assert.equal(still.json.credentials[0]?.revoked_at, null)
  })

  test('API keys are refused (401), a missing CSRF token is 403', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const res = await request(server, method, '/api/customer/lrs-credentials', {
        headers: { authorization: `Bearer ${testKey}` },
        ...(method === 'POST' && { body: {} }),
      })
      assert.equal(res.status, 401, method)
    }
    const noCsrf = await request(server, 'POST', '/api/customer/lrs-credentials', {
      headers: { cookie: owner.cookie },
      body: {},
    })
    assert.equal(noCsrf.status, 403)
  })
})
