import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { listAuditEvents } from '../../../src/modules/events/audit-event.repository.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { buildZip } from '../../helpers/zip-builder.ts'

const CMI5_XML = `<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="https://example.com/course/1"><title><langstring lang="en">Course</langstring></title>
    <description><langstring lang="en">A course</langstring></description></course>
  <block id="https://example.com/block/1">
    <title><langstring lang="en">Block</langstring></title>
    <description><langstring lang="en">Block</langstring></description>
    <au id="https://example.com/au/1" moveOn="CompletedAndPassed" masteryScore="0.8">
      <title><langstring lang="en">AU</langstring></title>
      <description><langstring lang="en">AU</langstring></description>
      <url>index.html?x=1</url>
      <launchParameters>p=1</launchParameters>
    </au>
  </block>
</courseStructure>`

const TINCAN_XML = `<?xml version="1.0" encoding="utf-8"?>
<tincan xmlns="http://projecttincan.com/tincan.xsd"><activities>
  <activity id="https://example.com/tincan/course" type="http://adlnet.gov/expapi/activities/course">
    <name>Tin Can course</name><description lang="en-US">A course</description>
    <launch lang="en-us">index.html</launch>
  </activity></activities></tincan>`

const CMI5 = 'https://w3id.org/xapi/cmi5/context/categories/cmi5'
const MOVE_ON = 'https://w3id.org/xapi/cmi5/context/categories/moveon'
const SESSION_ID = 'https://w3id.org/xapi/cmi5/context/extensions/sessionid'

describeEachDatabase('cmi5 and Tin Can launches', (database) => {
  let t: TestApp
  let tenant: TestTenant
  before(async () => {
    t = await createTestApp(database(), { env: { LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' } })
    tenant = await t.createTenant()
  })
  after(async () => {
    await t?.close()
  })

  async function upload(files: Record<string, string>): Promise<string> {
    const zip = buildZip(Object.entries(files).map(([name, data]) => ({ name, data })))
    const { payload, headers } = multipartFile(zip)
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      headers: { ...bearer(tenant.testKey), ...headers },
      payload,
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().package.id
  }

  async function launch(packageId: string, userId: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/packages/${packageId}/launch`,
      headers: bearer(tenant.testKey),
      payload: { user_id: userId },
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as { session_id: string; launch_url: string }
  }

  const xapi = (auth: string, method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown) =>
    t.app.inject({
      method,
      url: url.replace(/^https?:\/\/[^/]+/, ''),
      headers: {
        authorization: auth,
        'x-experience-api-version': '1.0.3',
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    })

  const detail = async (sessionId: string) => {
    const res = await t.app.inject({
      url: `/api/v1/sessions/${sessionId}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }

  test('a cmi5 AU runs through fetch, LaunchData and the statement rules to a completed session', async () => {
    const packageId = await upload({ 'cmi5.xml': CMI5_XML, 'index.html': '<p>AU</p>' })
    const launched = await launch(packageId, 'ann@example.com')
    const url = new URL(launched.launch_url)
    assert.match(url.pathname, /\/c\/[^/]+\/index\.html$/)
    assert.equal(url.searchParams.get('x'), '1')
    const endpoint = url.searchParams.get('endpoint') ?? ''
    const registration = url.searchParams.get('registration') ?? ''
    const activityId = url.searchParams.get('activityId') ?? ''
    const actor = JSON.parse(url.searchParams.get('actor') ?? '{}')
    assert.match(endpoint, /\/xapi$/)
    assert.notEqual(activityId, 'https://example.com/au/1')

    // The fetch URL answers once with a token, then with error-code 1.
    const fetchPath = (url.searchParams.get('fetch') ?? '').replace(/^https?:\/\/[^/]+/, '')
    const first = await t.content.inject({ method: 'POST', url: fetchPath })
    assert.equal(first.statusCode, 200)
    assert.match(String(first.headers['content-type']), /^application\/json/)
    const auth = `Basic ${first.json()['auth-token']}`
    const second = await t.content.inject({ method: 'POST', url: fetchPath })
    assert.equal(second.json()['error-code'], '1')

    const stateUrl = `${endpoint}/activities/state?${new URLSearchParams({
      stateId: 'LMS.LaunchData',
      activityId,
      agent: JSON.stringify(actor),
      registration,
    })}`
    const launchData = await xapi(auth, 'GET', stateUrl)
    assert.equal(launchData.statusCode, 200, launchData.body)
    const data = launchData.json()
    assert.equal(data.moveOn, 'CompletedAndPassed')
    assert.equal(data.masteryScore, 0.8)
    assert.equal(data.launchParameters, 'p=1')
    assert.equal(data.launchMode, 'Normal')
    // The AU may read LaunchData, never write it.
    assert.equal((await xapi(auth, 'PUT', stateUrl, { x: 1 })).statusCode, 403)

    const statement = (verb: string, extra: Record<string, unknown> = {}, moveOn = false) => {
      const context = structuredClone(data.contextTemplate)
      context.registration = registration
      context.contextActivities.category = [{ id: CMI5 }, ...(moveOn ? [{ id: MOVE_ON }] : [])]
      return {
        id: crypto.randomUUID(),
        timestamp: new Date().toISOString(),
        actor,
        verb: { id: `http://adlnet.gov/expapi/verbs/${verb}`, display: { en: verb } },
        object: { id: activityId },
        context,
        ...extra,
      }
    }
    const send = (st: Record<string, unknown>) => xapi(auth, 'POST', `${endpoint}/statements`, st)
    const completed = statement(
      'completed',
      { result: { completion: true, duration: 'PT5S' } },
      true,
    )
    // Not initialized yet, and learner preferences not read: refused with 403.
    assert.equal((await send(completed)).statusCode, 403)
    const prefs = `${endpoint}/agents/profile?${new URLSearchParams({
      profileId: 'cmi5LearnerPreferences',
      agent: JSON.stringify(actor),
    })}`
    assert.equal((await xapi(auth, 'GET', prefs)).statusCode, 404)
    assert.equal((await send(statement('initialized'))).statusCode, 200)
    assert.equal((await send(completed)).statusCode, 200)
    // completed at most once per registration.
    const again = statement('completed', { result: { completion: true, duration: 'PT5S' } }, true)
    assert.equal((await send(again)).statusCode, 403)
    // passed below the masteryScore is refused; at it, accepted.
    const low = { success: true, duration: 'PT5S', score: { scaled: 0.5 } }
    assert.equal((await send(statement('passed', { result: low }, true))).statusCode, 403)
    const passed = statement('passed', { result: { ...low, score: { scaled: 0.9 } } }, true)
    assert.equal((await send(passed)).statusCode, 200)
    assert.equal((await detail(launched.session_id)).completion_status, 'completed')
    const terminated = statement('terminated', { result: { duration: 'PT20S' } })
    assert.equal((await send(terminated)).statusCode, 200)
    // The credential ended with the session.
    assert.equal((await send(statement('experienced'))).statusCode, 401)

    const session = await detail(launched.session_id)
    assert.equal(session.completion_status, 'completed')
    assert.equal(session.success_status, 'passed')
    assert.equal(session.score.scaled, 0.9)
    const events = await listAuditEvents(
      t.ctx.db.kysely,
      { tenantId: tenant.tenantId, mode: 'test' },
      launched.session_id,
    )
    assert.deepEqual(
      events.map((e) => e.type).filter((type) => type.startsWith('session.')),
      ['session.completed'],
    )

    // The LMS's statements: launched first, satisfied for block and course after passed.
    const lrs = await t.app.inject({
      method: 'POST',
      url: '/api/v1/xapi/credentials',
      headers: bearer(tenant.testKey),
      payload: { label: 'reader' },
    })
    const reader = lrs.json()
    const basic = `Basic ${Buffer.from(`${reader.credential.key}:${reader.secret}`).toString('base64')}`
    const list = await xapi(
      basic,
      'GET',
      `/xapi/statements?registration=${registration}&ascending=true`,
    )
    const verbs = list
      .json()
      .statements.map((s: { verb: { id: string } }) => s.verb.id.split('/').pop())
    assert.deepEqual(verbs, [
      'launched',
      'initialized',
      'completed',
      'passed',
      'satisfied',
      'satisfied',
      'terminated',
    ])
    // The session says what its statements amount to, in its detail and in the list.
    const summary = (await detail(launched.session_id)).xapi
    assert.equal(summary.registration, registration)
    assert.equal(summary.statement_count, 7)
    assert.equal(summary.last_verb, 'http://adlnet.gov/expapi/verbs/terminated')
    const listed = await t.app.inject({
      url: `/api/v1/sessions?package_id=${packageId}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(listed.statusCode, 200, listed.body)
    assert.equal(listed.json().sessions[0].xapi.statement_count, 7)
    const launchedSt = list.json().statements[0]
    assert.equal(
      launchedSt.context.extensions[SESSION_ID],
      data.contextTemplate.extensions[SESSION_ID],
    )
  })

  test('the LMS abandons a session that will not terminate, and waives an AU', async () => {
    const packageId = await upload({ 'cmi5.xml': CMI5_XML, 'index.html': '<p>AU</p>' })
    const launched = await launch(packageId, 'bo@example.com')
    const url = new URL(launched.launch_url)
    const registration = url.searchParams.get('registration') ?? ''
    const fetchPath = (url.searchParams.get('fetch') ?? '').replace(/^https?:\/\/[^/]+/, '')
    const cmi5SessionId = /\/cmi5\/fetch\/([^/?]+)/.exec(fetchPath)?.[1] ?? ''
    const lms = (path: string, payload?: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/cmi5/${path}`,
        headers: bearer(tenant.testKey),
        ...(payload !== undefined && { payload }),
      })

    assert.equal((await lms(`sessions/${cmi5SessionId}/abandon`)).statusCode, 204)
    // An ended session cannot be abandoned again, and its fetch URL says it has ended.
    assert.equal((await lms(`sessions/${cmi5SessionId}/abandon`)).statusCode, 409)
    assert.equal((await lms(`sessions/${crypto.randomUUID()}/abandon`)).statusCode, 404)
    const fetched = await t.content.inject({ method: 'POST', url: fetchPath })
    assert.equal(fetched.json()['error-code'], '2')

    const waive = { au_index: 0, reason: 'Administrative' }
    assert.equal((await lms(`registrations/${registration}/waive`, waive)).statusCode, 204)
    assert.equal((await lms(`registrations/${crypto.randomUUID()}/waive`, waive)).statusCode, 404)
    assert.equal((await detail(launched.session_id)).completion_status, 'completed')

    const lrs = await t.app.inject({
      method: 'POST',
      url: '/api/v1/xapi/credentials',
      headers: bearer(tenant.testKey),
      payload: { label: 'reader' },
    })
    const reader = lrs.json()
    const basic = `Basic ${Buffer.from(`${reader.credential.key}:${reader.secret}`).toString('base64')}`
    const list = await xapi(
      basic,
      'GET',
      `/xapi/statements?registration=${registration}&ascending=true`,
    )
    const verbs = list
      .json()
      .statements.map((s: { verb: { id: string } }) => s.verb.id.split('/').pop())
    // Waiving the only AU satisfies its block and the course.
    assert.deepEqual(verbs, ['launched', 'abandoned', 'waived', 'satisfied', 'satisfied'])
  })

  test('a course of several AUs opens on its menu; each entry launches its AU', async () => {
    const two = CMI5_XML.replace(
      '</block>',
      `<au id="https://example.com/au/2"><title><langstring lang="en">Second &amp; last</langstring></title>
       <description><langstring lang="en">AU 2</langstring></description><url>two.html</url></au></block>`,
    )
    const packageId = await upload({ 'cmi5.xml': two, 'index.html': 'one', 'two.html': 'two' })
    const launched = await launch(packageId, 'cy@example.com')
    const menu = new URL(launched.launch_url)
    assert.match(menu.pathname, /^\/cmi5\/menu\//)
    const page = await t.content.inject({
      url: `${menu.pathname}${menu.search}`,
      headers: { host: menu.host },
    })
    assert.equal(page.statusCode, 200, page.body)
    assert.match(page.body, /Second &#38; last/)
    const href = /href="([^"]*\/au\/1\?[^"]*)"/.exec(page.body)?.[1] ?? ''
    const go = await t.content.inject({
      url: new URL(href.replaceAll('&#38;', '&'), menu).pathname + new URL(href, menu).search,
      headers: { host: menu.host },
    })
    assert.equal(go.statusCode, 303, go.body)
    const au = new URL(String(go.headers.location))
    assert.match(au.pathname, /\/two\.html$/)
    assert.ok(au.searchParams.get('fetch'))
    const forged = await t.content.inject({
      url: `${menu.pathname}?token=x`,
      headers: { host: menu.host },
    })
    assert.equal(forged.statusCode, 403)
  })

  test('a Tin Can course launches with endpoint, auth, actor and registration; status follows its statements', async () => {
    const packageId = await upload({ 'tincan.xml': TINCAN_XML, 'index.html': '<p>TC</p>' })
    const launched = await launch(packageId, 'bob@example.com')
    const url = new URL(launched.launch_url)
    const auth = url.searchParams.get('auth') ?? ''
    assert.match(auth, /^Basic /)
    assert.equal(url.searchParams.get('activity_id'), 'https://example.com/tincan/course')
    const actor = JSON.parse(url.searchParams.get('actor') ?? '{}')
    const st = {
      actor,
      verb: { id: 'http://adlnet.gov/expapi/verbs/passed', display: { en: 'passed' } },
      object: { id: 'https://example.com/tincan/course' },
      result: { success: true, completion: true, score: { scaled: 0.75 } },
      context: { registration: url.searchParams.get('registration') },
    }
    const res = await xapi(auth, 'POST', `${url.searchParams.get('endpoint')}statements`, st)
    assert.equal(res.statusCode, 200, res.body)
    const session = await detail(launched.session_id)
    assert.equal(session.completion_status, 'completed')
    assert.equal(session.success_status, 'passed')
    assert.equal(session.score.scaled, 0.75)
    // The course's credential reads its own registration, not the tenant's other learners.
    const endpoint = url.searchParams.get('endpoint') ?? ''
    const registration = url.searchParams.get('registration') ?? ''
    const own = await xapi(auth, 'GET', `${endpoint}statements?registration=${registration}`)
    assert.equal(own.statusCode, 200, own.body)
    assert.equal((await xapi(auth, 'GET', `${endpoint}statements`)).statusCode, 403)
    // Launch credentials are not the tenant's listed credentials.
    const creds = await t.app.inject({
      url: '/api/v1/xapi/credentials',
      headers: bearer(tenant.testKey),
    })
    assert.ok(
      creds.json().credentials.every((c: { label: string }) => !c.label.startsWith('Tin Can')),
    )
    // A Tin Can launch has no fetch URL: asking for one by its id is an unknown URL, not a crash.
    const row = await t.ctx.db.kysely
      .selectFrom('cmi5_launches')
      .select('id')
      .where('session_id', '=', launched.session_id)
      .executeTakeFirstOrThrow()
    for (const k of ['', 'guess']) {
      const fetched = await t.content.inject({
        method: 'POST',
        url: `/cmi5/fetch/${row.id}?k=${k}`,
      })
      assert.equal(fetched.statusCode, 200, fetched.body)
      assert.equal(fetched.json()['error-code'], '3')
    }
  })
})
