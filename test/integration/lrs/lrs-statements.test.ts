import assert from 'node:assert/strict'
import { createHash, randomUUID } from 'node:crypto'
import { after, before, it } from 'node:test'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  JSON_HEADERS,
  type LrsClient,
  type LrsTestServer,
  startLrsTestServer,
  statement,
} from './lrs.helper.ts'

interface StatementResult {
  statements: Array<Record<string, unknown> & { id: string }>
  more: string
}

describeEachDatabase('LRS statements over HTTP', (database) => {
  let server: LrsTestServer
  let lrs: LrsClient

  before(async () => {
    server = await startLrsTestServer(database())
    lrs = await server.credential(server.tenant.testKey, { label: 'course' })
  })
  after(async () => {
    await server.close()
  })

  const post = (body: unknown, version?: string) =>
    lrs.xapi('statements', {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(body),
      version,
    })

  it('stores a statement and returns it with id, stored, authority and version', async () => {
    const response = await post(statement())
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('x-experience-api-version'), '2.0.0')
    const [id] = (await response.json()) as string[]
    const read = await lrs.xapi(`statements?statementId=${id}`)
    assert.equal(read.status, 200)
    assert.ok(read.headers.get('x-experience-api-consistent-through'))
    const stored = (await read.json()) as Record<string, unknown>
    assert.equal(stored.id, id)
    assert.equal(typeof stored.stored, 'string')
    assert.deepEqual(stored.authority, {
      objectType: 'Agent',
      name: 'course',
      account: { homePage: 'http://127.0.0.1:18080', name: lrs.key },
    })
  })

  it('finds statements by related agents and activities, pages merged in stored order', async () => {
    const actor = { mbox: `mailto:${randomUUID()}@example.com` }
    const instructor = { mbox: `mailto:${randomUUID()}@example.com` }
    const course = `http://example.com/course/${randomUUID()}`
    const sent: string[] = []
    for (let i = 0; i < 4; i++) {
      // Alternately the actor and the instructor, so a related query reads both kinds of rows.
      const body = statement({
        id: randomUUID(),
        actor: i % 2 ? instructor : actor,
        context: {
          instructor: i % 2 ? actor : instructor,
          contextActivities: { parent: [{ id: course }] },
        },
      })
      assert.equal((await post(body)).status, 200)
      sent.push(String(body.id))
    }
    const ids = async (query: string) => {
      const found: string[] = []
      let next = `statements?${query}&limit=3`
      while (next) {
        const page = (await (await lrs.xapi(next)).json()) as StatementResult
        found.push(...page.statements.map((s) => s.id))
        next = page.more.replace(/^\/xapi\//, '')
      }
      return found
    }
    // Every match once, across pages (statements stored in the same millisecond may swap).
    const same = (found: string[], expected: string[]) =>
      assert.deepEqual([...found].sort(), [...expected].sort())
    const agent = encodeURIComponent(JSON.stringify(actor))
    same(await ids(`agent=${agent}&related_agents=true`), sent)
    same(await ids(`agent=${agent}`), [sent[0], sent[2]] as string[])
    same(await ids(`activity=${encodeURIComponent(course)}`), [])
    const related = `activity=${encodeURIComponent(course)}&related_activities=true`
    same(await ids(`${related}&ascending=true`), sent)
  })

  it('stores nothing from a batch with one invalid statement', async () => {
    const good = { ...statement(), id: randomUUID() }
    const bad = { ...statement(), id: randomUUID(), verb: { id: 'not an iri' } }
    const response = await post([good, bad])
    assert.equal(response.status, 400)
    const read = await lrs.xapi(`statements?statementId=${good.id}`)
    assert.equal(read.status, 404)
  })

  it('answers 409 when an id is reused with other content, 204 for the same content', async () => {
    const id = randomUUID()
    const body = { ...statement(), timestamp: '2026-01-01T00:00:00Z' }
    const put = (b: unknown) =>
      lrs.xapi(`statements?statementId=${id}`, {
        method: 'PUT',
        headers: JSON_HEADERS,
        body: JSON.stringify(b),
      })
    assert.equal((await put(body)).status, 204)
    assert.equal((await put(body)).status, 204)
    assert.equal((await put({ ...body, result: { success: true } })).status, 409)
  })

  it('stores a statement once when the same id arrives concurrently', async () => {
    const body = { ...statement(), id: randomUUID(), timestamp: '2026-01-01T00:00:00Z' }
    const responses = await Promise.all(Array.from({ length: 6 }, () => post(body)))
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 200, 200, 200, 200, 200],
    )
    const agent = encodeURIComponent(JSON.stringify(statement().actor))
    const since = encodeURIComponent(new Date(Date.now() - 60_000).toISOString())
    const page = (await (
      await lrs.xapi(`statements?agent=${agent}&since=${since}`)
    ).json()) as StatementResult
    assert.equal(page.statements.filter((s) => s.id === body.id).length, 1)
  })

  it('filters by agent, verb and activity and pages with an opaque more link', async () => {
    const agent = { mbox: `mailto:${randomUUID()}@example.com` }
    const verb = 'http://example.com/verbs/paged'
    for (let i = 0; i < 5; i++) {
      const response = await post(statement({ actor: agent, verb: { id: verb } }))
      assert.equal(response.status, 200)
    }
    const query = new URLSearchParams({ agent: JSON.stringify(agent), verb, limit: '2' })
    const seen: string[] = []
    let next = `statements?${query}`
    for (let page = 0; page < 5 && next; page++) {
      const response = await lrs.xapi(next)
      assert.equal(response.status, 200)
      const result = (await response.json()) as StatementResult
      seen.push(...result.statements.map((s) => s.id))
      next = result.more ? result.more.replace(/^\/xapi\//, '') : ''
    }
    assert.equal(seen.length, 5)
    assert.equal(new Set(seen).size, 5)
  })

  it('hides a voided statement from statementId and queries, not from voidedStatementId', async () => {
    const target = (await (await post(statement())).json()) as string[]
    const voiding = statement({
      verb: { id: 'http://adlnet.gov/expapi/verbs/voided' },
      object: { objectType: 'StatementRef', id: target[0] },
    })
    assert.equal((await post(voiding)).status, 200)
    assert.equal((await lrs.xapi(`statements?statementId=${target[0]}`)).status, 404)
    assert.equal((await lrs.xapi(`statements?voidedStatementId=${target[0]}`)).status, 200)
  })

  it('stores multipart/mixed attachments checked against their sha2 and returns them', async () => {
    const content = Buffer.from('certificate of completion')
    const sha2 = createHash('sha256').update(content).digest('hex')
    const withAttachment = statement({
      attachments: [
        {
          usageType: 'http://example.com/attachment/certificate',
          display: { 'en-US': 'Certificate' },
          contentType: 'text/plain',
          length: content.length,
          sha2,
        },
      ],
    })
    const multipart = (hash: string) =>
      Buffer.concat([
        Buffer.from(
          `--b\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(withAttachment)}\r\n` +
            `--b\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: binary\r\n` +
            `X-Experience-API-Hash: ${hash}\r\n\r\n`,
        ),
        content,
        Buffer.from('\r\n--b--\r\n'),
      ])
    const send = (body: Buffer) =>
      lrs.xapi('statements', {
        method: 'POST',
        headers: { 'content-type': 'multipart/mixed; boundary=b' },
        body: new Uint8Array(body),
      })
    assert.equal((await send(multipart('0'.repeat(64)))).status, 400)
    const response = await send(multipart(sha2))
    assert.equal(response.status, 200)
    const [id] = (await response.json()) as string[]
    const read = await lrs.xapi(`statements?statementId=${id}&attachments=true`)
    assert.match(read.headers.get('content-type') ?? '', /^multipart\/mixed; boundary=/)
    const text = Buffer.from(await read.arrayBuffer()).toString('utf8')
    assert.ok(text.includes('certificate of completion'))
    assert.ok(text.includes(`X-Experience-API-Hash: ${sha2}`.toLowerCase()))
  })

  it('refuses requests without a version header or credentials, and revoked credentials', async () => {
    assert.equal((await lrs.xapi('statements', { version: null })).status, 400)
    const anonymous = await fetch(`${server.base}/xapi/statements`, {
      headers: { 'x-experience-api-version': '1.0.3' },
    })
    assert.equal(anonymous.status, 401)
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic/)
    const doomed = await server.credential(server.tenant.testKey)
    assert.equal((await doomed.xapi('statements')).status, 200)
    const revoke = await fetch(`${server.base}/api/v1/xapi/credentials/${doomed.credentialId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.tenant.testKey}` },
    })
    assert.equal(revoke.status, 204)
    assert.equal((await doomed.xapi('statements')).status, 401)
  })

  it('lets a statements/read credential read statements and nothing else', async () => {
    const reader = await server.credential(server.tenant.testKey, { scope: 'statements/read' })
    assert.equal((await reader.xapi('statements')).status, 200)
    const write = await reader.xapi('statements', {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify(statement()),
    })
    assert.equal(write.status, 403)
    const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:a@example.com' }))
    const state = await reader.xapi(
      `activities/state?activityId=http://example.com/a&agent=${agent}&stateId=s`,
    )
    assert.equal(state.status, 403)
  })

  it("never shows one tenant's or mode's statements to another credential", async () => {
    const [id] = (await (await post(statement())).json()) as string[]
    const live = await server.credential(server.tenant.liveKey)
    const other = await server.testApp.createTenant()
    const foreign = await server.credential(other.testKey)
    for (const client of [live, foreign]) {
      assert.equal((await client.xapi(`statements?statementId=${id}`)).status, 404)
      const all = (await (await client.xapi('statements')).json()) as StatementResult
      assert.ok(!all.statements.some((s) => s.id === id))
    }
  })

  it('accepts the 1.0.3 alternate request syntax and refuses it under 2.0', async () => {
    const form = (version: string) =>
      new URLSearchParams({
        'X-Experience-API-Version': version,
        'Content-Type': 'application/json',
        content: JSON.stringify(statement()),
      }).toString()
    const send = (version: string) =>
      lrs.xapi('statements?method=POST', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form(version),
        version: null,
      })
    assert.equal((await send('1.0.3')).status, 200)
    assert.equal((await send('2.0.0')).status, 400)
  })

  it('answers CORS preflights for any origin without credentials', async () => {
    const response = await fetch(`${server.base}/xapi/statements`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://courses.example.org',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, x-experience-api-version',
      },
    })
    assert.equal(response.status, 204)
    assert.equal(response.headers.get('access-control-allow-origin'), '*')
    assert.match(response.headers.get('access-control-allow-headers') ?? '', /Authorization/)
    assert.equal(response.headers.get('access-control-allow-credentials'), null)
  })

  it('keeps the merged definition of an activity, re-sent definitions included', async () => {
    const id = `http://example.com/activity/${randomUUID()}`
    const withDefinition = (definition: Record<string, unknown>) =>
      statement({ object: { id, definition } })
    const first = { name: { 'en-US': 'Page' }, description: { 'en-US': 'One page' } }
    assert.equal((await post([withDefinition(first), withDefinition(first)])).status, 200)
    // A re-sent definition, then one adding a language, then the re-sent one again: the
    // language map merges key by key, and the newest value of each key wins.
    assert.equal((await post(withDefinition(first))).status, 200)
    const french = { name: { 'fr-FR': 'Page' } }
    assert.equal((await post([withDefinition(french), withDefinition(first)])).status, 200)
    const renamed = {
      name: { 'en-US': 'Renamed' },
      type: 'http://adlnet.gov/expapi/activities/lesson',
    }
    assert.equal((await post(withDefinition(renamed))).status, 200)
    const read = await lrs.xapi(`activities?activityId=${encodeURIComponent(id)}`)
    assert.deepEqual(await read.json(), {
      objectType: 'Activity',
      id,
      definition: {
        name: { 'en-US': 'Renamed', 'fr-FR': 'Page' },
        description: { 'en-US': 'One page' },
        type: 'http://adlnet.gov/expapi/activities/lesson',
      },
    })
  })
})
