import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { listAuditEvents } from '../../../src/modules/events/audit-event.repository.ts'
import { signToken } from '../../../src/shared/signed-token.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'

describeEachDatabase('launch and runtime', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let scorm12: string
  let scorm2004: string
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('growth')
    scorm12 = await uploadGolf(t, tenant.testKey, 'singlescobasic.zip')
    scorm2004 = await uploadGolf(t, tenant.testKey, 'RuntimeBasicCalls_SCORM20043rdEdition.zip')
  })
  after(() => t.close())

  test('launch returns a signed URL on the content origin; launching again resumes the session', async () => {
    const first = await launch(t, tenant.testKey, scorm12, 'ana@example.com')
    assert.match(first.launch_url, /^http:\/\/127\.0\.0\.1:18081\/launch\/ses_\w+\?token=/)
    assert.equal(first.learner_id, 'ana@example.com')
    const again = await launch(t, tenant.testKey, scorm12, 'ana@example.com')
    assert.equal(again.session_id, first.session_id)
    const other = await launch(t, tenant.testKey, scorm12, 'ben@example.com')
    assert.notEqual(other.session_id, first.session_id)
    const events = await listAuditEvents(
      t.ctx.db.kysely,
      { tenantId: tenant.tenantId, mode: 'test' },
      scorm12,
    )
    assert.equal(events.filter((e) => e.type === 'package.launched').length, 3)
  })

  test('concurrent first launches of one learner share one session', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => launch(t, tenant.testKey, scorm12, 'racer@example.com')),
    )
    assert.equal(new Set(results.map((r) => r.session_id)).size, 1)
  })

  test('SCORM 1.2: commits show live progress; LMSFinish completes the session once, with score and time', async () => {
    const { session_id, launch_url } = await launch(t, tenant.testKey, scorm12, 'carla@example.com')
    const player = await startPlayer(t, launch_url)
    assert.equal(player.started.scorm_version, '1.2')
    const sco = await player.deliver(player.started.current_item_id)
    assert.equal(sco.api.LMSInitialize?.(''), 'true')
    assert.equal(sco.api.LMSGetValue?.('cmi.core.student_id'), 'carla@example.com')
    sco.api.LMSSetValue?.('cmi.core.lesson_status', 'incomplete')
    sco.api.LMSSetValue?.('cmi.core.lesson_location', 'page-3')
    sco.api.LMSCommit?.('')
    await sco.flush()
    const live = await t.app.inject({
      url: `/api/v1/sessions/${session_id}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(live.json().completion_status, 'incomplete')
    assert.equal(live.json().cmi_data['cmi.core.lesson_location'], 'page-3')

    sco.api.LMSSetValue?.('cmi.core.score.raw', '85')
    sco.api.LMSSetValue?.('cmi.core.lesson_status', 'passed')
    sco.api.LMSSetValue?.('cmi.core.session_time', '00:05:30')
    assert.equal(sco.api.LMSFinish?.(''), 'true')
    await sco.flush({ beacon: true })
    const done = (
      await t.app.inject({ url: `/api/v1/sessions/${session_id}`, headers: bearer(tenant.testKey) })
    ).json()
    assert.equal(done.completion_status, 'completed')
    assert.equal(done.success_status, 'passed')
    assert.deepEqual(done.session, {
      session_id,
      completion_status: 'completed',
      success_status: 'passed',
      score: { scaled: 0.85, raw: 85 },
    })
    assert.equal(done.user_id, 'carla@example.com')
    assert.equal(done.time_spent_seconds, 330)
    assert.equal(done.session_time, 'PT0H5M30S')
    assert.equal(done.progress_percent, 100)
    const events = await listAuditEvents(
      t.ctx.db.kysely,
      { tenantId: tenant.tenantId, mode: 'test' },
      session_id,
    )
    assert.deepEqual(
      events.map((e) => e.type),
      ['session.completed'],
    )
    const data = events[0]?.data as Record<string, unknown>
    for (const field of [
      'session_id',
      'package_id',
      'learner_id',
      'completion_status',
      'success_status',
      'progress_percent',
      'score',
      'session_time',
      'time_spent_seconds',
      'updated_at',
    ]) {
      assert.ok(field in data, field)
    }
    const next = await launch(t, tenant.testKey, scorm12, 'carla@example.com')
    assert.notEqual(next.session_id, session_id, 'a completed attempt is not resumed')
    assert.equal(next.attempt, 2)
  })

  test('commits are idempotent by sequence; a gap asks for a resend; invalid values are refused, not stored', async () => {
    const { launch_url, session_id } = await launch(t, tenant.testKey, scorm2004, 'dan@example.com')
    const player = await startPlayer(t, launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    const delta = {
      seq: 1,
      fromSeq: 0,
      values: { 'cmi.location': 'p1', 'cmi.score.scaled': '7' },
      final: false,
    }
    const first = await sco.post(delta)
    assert.equal(first.json().applied, true)
    assert.deepEqual(
      first.json().errors.map((e: { element: string }) => e.element),
      ['cmi.score.scaled'],
    )
    const dup = await sco.post(delta)
    assert.equal(dup.statusCode, 200)
    assert.equal(dup.json().applied, false)
    const gap = await sco.post({ seq: 4, fromSeq: 3, values: {}, final: false })
    assert.equal(gap.statusCode, 409)
    assert.equal(gap.json().error.code, 'sequence_gap')
    assert.equal(gap.json().error.details.last_seq, 1)
    const detail = (
      await t.app.inject({ url: `/api/v1/sessions/${session_id}`, headers: bearer(tenant.testKey) })
    ).json()
    const cmi = detail.cmi_data // one SCO: the elements directly
    assert.equal(cmi['cmi.location'], 'p1')
    assert.equal(cmi['cmi.score.scaled'], undefined)
    const notDelta = await t.content.inject({
      method: 'POST',
      url: `/runtime/sessions/${session_id}/commits`,
      headers: { authorization: `Bearer ${player.started.runtime_token}` },
      payload: { delivery_id: sco.delivery.delivery_id, delta: 'nonsense' },
    })
    assert.equal(notDelta.statusCode, 400)
  })

  test('SCORM 2004: suspend, relaunch, resume with suspend data and entry=resume', async () => {
    const { launch_url, session_id } = await launch(t, tenant.testKey, scorm2004, 'eve@example.com')
    const player = await startPlayer(t, launch_url)
    const itemId = player.started.current_item_id
    const sco = await player.deliver(itemId)
    assert.equal(sco.api.Initialize?.(''), 'true')
    assert.equal(sco.api.GetValue?.('cmi.entry'), 'ab-initio')
    sco.api.SetValue?.('cmi.suspend_data', 'state:42')
    sco.api.SetValue?.('cmi.location', 'page-2')
    sco.api.SetValue?.('cmi.exit', 'suspend')
    sco.api.SetValue?.('cmi.session_time', 'PT2M')
    sco.api.SetValue?.('adl.nav.request', 'suspendAll')
    assert.equal(sco.api.Terminate?.(''), 'true')
    await sco.flush()
    const events = await listAuditEvents(
      t.ctx.db.kysely,
      { tenantId: tenant.tenantId, mode: 'test' },
      session_id,
    )
    assert.deepEqual(
      events.map((e) => e.type),
      ['session.suspended'],
    )

    const relaunch = await launch(t, tenant.testKey, scorm2004, 'eve@example.com')
    assert.equal(relaunch.session_id, session_id)
    const again = await startPlayer(t, relaunch.launch_url)
    assert.equal(again.started.current_item_id, itemId)
    const resumed = await again.deliver(itemId)
    assert.equal(resumed.api.Initialize?.(''), 'true')
    assert.equal(resumed.api.GetValue?.('cmi.entry'), 'resume')
    assert.equal(resumed.api.GetValue?.('cmi.suspend_data'), 'state:42')
    assert.equal(resumed.api.GetValue?.('cmi.location'), 'page-2')
    assert.equal(resumed.api.GetValue?.('cmi.total_time'), 'PT2M')
  })

  test('forged, expired, other-session and other-purpose tokens are refused', async () => {
    const a = await launch(t, tenant.testKey, scorm12, 'fay@example.com')
    const b = await launch(t, tenant.testKey, scorm12, 'gus@example.com')
    const tokenA = new URL(a.launch_url).searchParams.get('token') as string
    const expired = signToken(
      t.ctx.config.secretKey,
      'launch',
      { sid: a.session_id },
      new Date(Date.now() - 1000),
    )
    const late = await t.content.inject({
      method: 'POST',
      url: `/runtime/sessions/${a.session_id}/start`,
      payload: { token: expired },
    })
    assert.equal(late.statusCode, 401, late.body)
    assert.match(late.json().error.message, /expired/)
    const tries = [
      { session: b.session_id, token: tokenA },
      { session: a.session_id, token: `${tokenA.slice(0, -2)}xx` },
      { session: a.session_id, token: 'garbage' },
      { session: a.session_id, token: undefined },
    ]
    for (const { session, token } of tries) {
      const res = await t.content.inject({
        method: 'POST',
        url: `/runtime/sessions/${session}/start`,
        payload: { token },
      })
      assert.equal(res.statusCode, 401, res.body)
    }
    const started = await startPlayer(t, a.launch_url)
    const asLaunch = await t.content.inject({
      method: 'POST',
      url: `/runtime/sessions/${a.session_id}/start`,
      payload: { token: started.started.runtime_token },
    })
    assert.equal(asLaunch.statusCode, 401, 'a runtime token is not a launch token')
  })

  test('sessions of another tenant or mode are 404', async () => {
    const other = await t.createTenant()
    const { session_id } = await launch(t, tenant.testKey, scorm12, 'hal@example.com')
    for (const key of [other.testKey, tenant.liveKey]) {
      const res = await t.app.inject({
        url: `/api/v1/sessions/${session_id}`,
        headers: bearer(key),
      })
      assert.equal(res.statusCode, 404)
      const launchRes = await t.app.inject({
        method: 'POST',
        url: `/api/v1/packages/${scorm12}/launch`,
        headers: bearer(key),
        payload: { user_id: 'x' },
      })
      assert.equal(launchRes.statusCode, 404)
    }
  })
})
