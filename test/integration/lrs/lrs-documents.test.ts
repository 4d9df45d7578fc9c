import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, it } from 'node:test'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  JSON_HEADERS,
  type LrsClient,
  type LrsTestServer,
  startLrsTestServer,
} from './lrs.helper.ts'

const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:learner@example.com' }))
const activity = encodeURIComponent('http://example.com/course/1')

describeEachDatabase('LRS documents over HTTP', (database) => {
  let server: LrsTestServer
  let lrs: LrsClient

  before(async () => {
    server = await startLrsTestServer(database())
    lrs = await server.credential(server.tenant.testKey)
  })
  after(async () => {
    await server.close()
  })

  const write = (path: string, method: string, body: unknown, headers = {}, version = '2.0.0') =>
    lrs.xapi(path, {
      method,
      headers: { ...JSON_HEADERS, ...headers },
      body: JSON.stringify(body),
      version,
    })

  it('stores state with a SHA-1 ETag, merges JSON on POST and lists ids', async () => {
    const path = `activities/state?activityId=${activity}&agent=${agent}&stateId=bookmark`
    assert.equal((await write(path, 'PUT', { page: 1 }, {}, '1.0.3')).status, 204)
    assert.equal((await write(path, 'POST', { score: 5 })).status, 204)
    const read = await lrs.xapi(path)
    assert.equal(read.status, 200)
    const body = Buffer.from(await read.arrayBuffer())
    assert.deepEqual(JSON.parse(body.toString()), { page: 1, score: 5 })
    assert.equal(read.headers.get('etag'), `"${createHash('sha1').update(body).digest('hex')}"`)
    assert.ok(read.headers.get('last-modified'))
    const ids = await lrs.xapi(`activities/state?activityId=${activity}&agent=${agent}`)
    assert.deepEqual(await ids.json(), ['bookmark'])
  })

  it('applies If-Match and If-None-Match with 412, and 409 for a blind overwrite', async () => {
    const path = `activities/profile?activityId=${activity}&profileId=settings`
    assert.equal((await write(path, 'PUT', { a: 1 }, { 'if-none-match': '*' })).status, 204)
    assert.equal((await write(path, 'PUT', { a: 2 }, { 'if-none-match': '*' })).status, 412)
    assert.equal((await write(path, 'PUT', { a: 2 })).status, 409)
    assert.equal((await write(path, 'PUT', { a: 2 }, { 'if-match': '"nope"' })).status, 412)
    const etag = (await lrs.xapi(path)).headers.get('etag') ?? ''
    assert.equal((await write(path, 'PUT', { a: 2 }, { 'if-match': etag })).status, 204)
    assert.deepEqual(await (await lrs.xapi(path)).json(), { a: 2 })
    const stale = await lrs.xapi(path, { method: 'DELETE', headers: { 'if-match': etag } })
    assert.equal(stale.status, 412)
  })

  it('keeps agent profiles per agent and refuses a POST that is not a JSON object', async () => {
    const path = `agents/profile?agent=${agent}&profileId=prefs`
    assert.equal((await write(path, 'POST', { theme: 'dark' })).status, 204)
    const notJson = await lrs.xapi(path, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: 'not json',
    })
    assert.equal(notJson.status, 400)
    const other = encodeURIComponent(JSON.stringify({ mbox: 'mailto:other@example.com' }))
    assert.equal((await lrs.xapi(`agents/profile?agent=${other}&profileId=prefs`)).status, 404)
    assert.equal((await lrs.xapi(path, { method: 'DELETE' })).status, 204)
    assert.equal((await lrs.xapi(path)).status, 404)
  })

  it('answers the agents and activities resources and about without credentials', async () => {
    const person = await lrs.xapi(`agents?agent=${agent}`)
    assert.deepEqual(await person.json(), {
      objectType: 'Person',
      mbox: ['mailto:learner@example.com'],
    })
    const unknown = await lrs.xapi(`activities?activityId=${activity}`)
    assert.deepEqual(await unknown.json(), {
      objectType: 'Activity',
      id: 'http://example.com/course/1',
    })
    const about = await fetch(`${server.base}/xapi/about`)
    assert.equal(about.status, 200)
    assert.deepEqual(((await about.json()) as { version: string[] }).version, ['1.0.3', '2.0.0'])
  })

  it("keeps one tenant's documents from another tenant's credential", async () => {
    const path = `activities/state?activityId=${activity}&agent=${agent}&stateId=private`
    assert.equal((await write(path, 'PUT', { secret: true }, { 'if-none-match': '*' })).status, 204)
    const other = await server.testApp.createTenant()
    const foreign = await server.credential(other.testKey)
    assert.equal((await foreign.xapi(path)).status, 404)
  })
})
