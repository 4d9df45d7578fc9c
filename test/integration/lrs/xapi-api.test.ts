import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, it } from 'node:test'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  JSON_HEADERS,
  type LrsClient,
  type LrsTestServer,
  startLrsTestServer,
  statement,
} from './lrs.helper.ts'

interface StatementList {
  statements: Array<{ id: string; verb: { id: string } }>
  next_cursor: string | null
}

describeEachDatabase('/api/v1/xapi', (database) => {
  let server: LrsTestServer
  let lrs: LrsClient

  before(async () => {
    server = await startLrsTestServer(database())
    lrs = await server.credential(server.tenant.testKey)
  })
  after(async () => {
    await server.close()
  })

  const api = (path: string, key = server.tenant.testKey) =>
    server.testApp.app.inject({ method: 'GET', url: `/api/v1/xapi/${path}`, headers: bearer(key) })

  it('creates credentials with a secret shown once and lists them without it', async () => {
    const created = await server.testApp.app.inject({
      method: 'POST',
      url: '/api/v1/xapi/credentials',
      headers: bearer(server.tenant.testKey),
      payload: { label: 'catalogue', scope: 'all/read' },
    })
    assert.equal(created.statusCode, 201)
    const body = created.json() as { credential: { id: string; scope: string }; secret: string }
    assert.equal(body.credential.scope, 'all/read')
    assert.equal(body.secret.length, 43)
    const list = await api('credentials')
    assert.equal(list.statusCode, 200)
    assert.ok(!list.body.includes(body.secret))
    const ids = (list.json() as { credentials: Array<{ id: string }> }).credentials.map((c) => c.id)
    assert.ok(ids.includes(body.credential.id))
    const liveList = await api('credentials', server.tenant.liveKey)
    assert.ok(!liveList.body.includes(body.credential.id))
    const foreign = await server.testApp.app.inject({
      method: 'DELETE',
      url: `/api/v1/xapi/credentials/${body.credential.id}`,
      headers: bearer(server.tenant.liveKey),
    })
    assert.equal(foreign.statusCode, 404)
  })

  it('reads the LRS store filtered by agent, verb and activity, paged with a cursor', async () => {
    const mbox = `mailto:${randomUUID()}@example.com`
    const verb = 'http://example.com/verbs/api'
    for (let i = 0; i < 3; i++) {
      const response = await lrs.xapi('statements', {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify(statement({ actor: { mbox }, verb: { id: verb } })),
      })
      assert.equal(response.status, 200)
    }
    const query = new URLSearchParams({ agent: mbox, verb, limit: '2' })
    const first = await api(`statements?${query}`)
    assert.equal(first.statusCode, 200)
    const page1 = first.json() as StatementList
    assert.equal(page1.statements.length, 2)
    assert.ok(page1.next_cursor)
    query.set('cursor', page1.next_cursor)
    const page2 = (await api(`statements?${query}`)).json() as StatementList
    assert.equal(page2.statements.length, 1)
    assert.equal(page2.next_cursor, null)
    const activity = await api(
      `statements?activity=${encodeURIComponent('http://example.com/course/1')}&verb=${encodeURIComponent(verb)}`,
    )
    assert.equal((activity.json() as StatementList).statements.length, 3)
    const live = (
      await api(`statements?verb=${encodeURIComponent(verb)}`, server.tenant.liveKey)
    ).json()
    assert.equal((live as StatementList).statements.length, 0)
  })

  it('describes the xAPI operations in the OpenAPI document', async () => {
    const doc = await server.testApp.app.inject({ method: 'GET', url: '/api/docs/openapi' })
    const text = doc.body
    for (const id of [
      'createXapiCredential',
      'listXapiCredentials',
      'revokeXapiCredential',
      'listXapiStatements',
    ]) {
      assert.ok(text.includes(id), `${id} missing`)
    }
    assert.ok(!text.includes('"/xapi/'))
    assert.ok(text.includes('xapi_version'), 'the credential version setting is documented')
  })

  it('answers requests without a version header in the version the credential was made for', async () => {
    const legacy = await server.credential(server.tenant.testKey, { xapi_version: '1.0.3' })
    const list = await api('credentials')
    const rows = (list.json() as { credentials: Array<{ id: string; xapi_version: string }> })
      .credentials
    assert.equal(rows.find((c) => c.id === legacy.credentialId)?.xapi_version, '1.0.3')
    assert.equal(rows.find((c) => c.id === lrs.credentialId)?.xapi_version, '2.0.0')

    // Both versions refuse a request without the header; the refusal speaks the credential's.
    for (const [client, version] of [
      [legacy, '1.0.3'],
      [lrs, '2.0.0'],
    ] as const) {
      const refused = await client.xapi('statements', { version: null })
      assert.equal(refused.status, 400)
      assert.equal(refused.headers.get('x-experience-api-version'), version)
    }
    // A request that names its version is answered in it, whatever the credential's setting.
    const named = await legacy.xapi('statements', { version: '2.0.0' })
    assert.equal(named.status, 200)
    assert.equal(named.headers.get('x-experience-api-version'), '2.0.0')
    const stored = await legacy.xapi('statements', {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(statement()),
      version: '1.0.3',
    })
    assert.equal(stored.status, 200)
    assert.equal(stored.headers.get('x-experience-api-version'), '1.0.3')

    const bad = await server.testApp.app.inject({
      method: 'POST',
      url: '/api/v1/xapi/credentials',
      headers: bearer(server.tenant.testKey),
      payload: { xapi_version: '0.95' },
    })
    assert.equal(bad.statusCode, 400)
  })
})
