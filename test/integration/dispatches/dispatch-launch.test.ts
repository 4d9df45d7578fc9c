import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ManualClock } from '../../../src/shared/clock.ts'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'
import {
  api,
  createDispatch,
  type DispatchRecord,
  dispatchEvents,
  frameLaunch,
  LMS_ORIGIN,
} from './dispatch-helpers.ts'

describeEachDatabase('launching through a dispatch', (database) => {
  const clock = new ManualClock('2026-05-01T08:00:00.000Z')
  let t: TestApp
  let tenant: TestTenant
  let pkg: string
  let call: ReturnType<typeof api>
  before(async () => {
    t = await createTestApp(database(), { clock })
    tenant = await t.createTenant('growth')
    pkg = await uploadGolf(t, tenant.testKey, 'singlescobasic.zip')
    call = api(t, tenant.testKey)
  })
  after(() => t.close())

  const refusalOf = async (res: { statusCode: number; body: string; json(): unknown }) => {
    assert.equal(res.statusCode, 403, res.body)
    const { error } = res.json() as {
      error: { code: string; message: string; details: { reason: string } }
    }
    assert.equal(error.code, 'launch_refused')
    assert.ok(error.message.length > 20, 'a sentence the learner can read')
    return error.details.reason
  }

  test('a launch from an allowed LMS creates a session carrying the dispatch id; runtime data and counts follow', async () => {
    const d = await createDispatch(t, tenant.testKey, {
      packageId: pkg,
      name: 'Acme',
      licenseLimit: 5,
      allowedDomains: ['lms.acme.example'],
    })
    const res = await frameLaunch(t, d, {
      origin: LMS_ORIGIN,
      learnerId: 'acme-learner-1',
      learnerName: 'Doe, Jane',
    })
    assert.equal(res.statusCode, 200, res.body)
    const launched = res.json()
    assert.equal(launched.dispatch_id, d.id)
    assert.equal(launched.learner_id, 'acme-learner-1')
    assert.match(launched.launch_url, /^http:\/\/127\.0\.0\.1:18081\/launch\/ses_/)

    // The hosted side: the real runtime endpoints, as the player uses them.
    const player = await startPlayer(t, launched.launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    assert.equal(sco.delivery.launch_data.learnerName, 'Doe, Jane')
    sco.api.LMSInitialize?.('')
    sco.api.LMSSetValue?.('cmi.core.score.raw', '85')
    sco.api.LMSSetValue?.('cmi.core.lesson_status', 'passed')
    sco.api.LMSFinish?.('')
    await sco.flush()

    const sessions = await call('GET', `/sessions?dispatch_id=${d.id}`)
    assert.equal(sessions.statusCode, 200)
    const [session] = sessions.json().sessions
    assert.equal(session.session_id, launched.session_id)
    assert.equal(session.dispatch_id, d.id)
    assert.equal(session.learner_id, 'acme-learner-1')
    assert.equal(session.success_status, 'passed')
    assert.equal(session.score.raw, 85)

    // The same learner again, with the key the wrapper kept: same seat, same dispatch, a new
    // attempt after the passed one.
    assert.match(launched.learner_key, /^[A-Za-z0-9_-]{43}$/)
    const again = await frameLaunch(t, d, {
      origin: LMS_ORIGIN,
      learnerId: 'acme-learner-1',
      learnerKey: launched.learner_key,
    })
    assert.equal(again.statusCode, 200, again.body)
    assert.equal(again.json().learner_id, 'acme-learner-1')
    assert.equal(again.json().learner_key, null, 'a resumed registration keeps its key')
    const record = (await call('GET', `/dispatches/${d.id}`)).json() as DispatchRecord
    assert.deepEqual(record.counts, {
      uniqueLearners: 1,
      launches: 2,
      completions: 1,
      refusals: 0,
      separatedLearners: 0,
      rateLimited: 0,
    })
    const types = (await dispatchEvents(t, tenant.tenantId, d.id)).map((e) => e.type)
    assert.deepEqual(types, ['dispatch.created', 'dispatch.launched', 'dispatch.launched'])
  })

  test('refusals: paused, archived, deleted, expired — each recorded with its reason', async () => {
    const d = await createDispatch(t, tenant.testKey, {
      packageId: pkg,
      name: 'States',
      expiresAt: '2026-05-02T00:00:00Z',
    })
    const go = () => frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'l-1' })
    await call('POST', `/dispatches/${d.id}/pause`)
    assert.equal(await refusalOf(await go()), 'paused')
    await call('POST', `/dispatches/${d.id}/resume`)
    assert.equal((await go()).statusCode, 200)
    await call('POST', `/dispatches/${d.id}/archive`)
    assert.equal(await refusalOf(await go()), 'archived')
    await call('POST', `/dispatches/${d.id}/restore`)

    // Refused from the instant the expiry passes — no job needs to have run.
    clock.set('2026-05-01T23:59:59.999Z')
    assert.equal((await go()).statusCode, 200)
    clock.set('2026-05-02T00:00:00.000Z')
    assert.equal(await refusalOf(await go()), 'expired')
    await call('POST', `/dispatches/${d.id}/extend`, { expiresAt: '2026-06-01T00:00:00Z' })
    assert.equal((await go()).statusCode, 200)
    clock.set('2026-05-01T08:00:00.000Z')

    await call('DELETE', `/dispatches/${d.id}`)
    assert.equal(await refusalOf(await go()), 'deleted')

    const events = await dispatchEvents(t, tenant.tenantId, d.id)
    const refused = events.filter((e) => e.type === 'dispatch.launch_refused')
    assert.deepEqual(
      refused.map((e) => e.data.reason),
      ['paused', 'archived', 'expired', 'deleted'],
    )
    for (const e of refused) {
      assert.equal(e.severity, 'warn')
      assert.equal(e.data.origin, LMS_ORIGIN)
      assert.equal(e.data.learner_id, 'l-1')
    }
  })

  test('the LMS origin must match allowedDomains; look-alikes and opaque origins are refused', async () => {
    const d = await createDispatch(t, tenant.testKey, {
      packageId: pkg,
      name: 'Domains',
      allowedDomains: [
        'lms.acme.example',
        '*.acme-learning.example',
        'https://secure.acme.example',
      ],
    })
    const allowed = [
      'https://lms.acme.example',
      'http://lms.acme.example:8080',
      'https://eu.acme-learning.example',
      'https://a.b.acme-learning.example',
      'https://secure.acme.example',
    ]
    const refused = [
      'https://evil.example',
      'https://lms.acme.example.evil.example',
      'https://evilacme-learning.example',
      'https://acme-learning.example', // *. does not include the domain itself
      'http://secure.acme.example', // the rule names https
      'null',
      'https://lms.acme.example/path',
      '',
    ]
    for (const origin of allowed) {
      const res = await frameLaunch(t, d, { origin, learnerId: 'domain-learner' })
      assert.equal(res.statusCode, 200, `${origin}: ${res.body}`)
    }
    for (const origin of refused) {
      const res = await frameLaunch(t, d, { origin, learnerId: `refused-${origin}` })
      assert.equal(await refusalOf(res), 'domain_not_allowed', origin)
    }
    const record = (await call('GET', `/dispatches/${d.id}`)).json() as DispatchRecord
    assert.equal(record.counts.refusals, refused.length)
    assert.equal(record.counts.uniqueLearners, 1, 'refused launches take no seat')
    const listed = await call('GET', `/dispatches/${d.id}/refusals?limit=3`)
    assert.equal(listed.statusCode, 200)
    assert.deepEqual(
      listed.json().refusals.map((r: { reason: string; origin: string }) => [r.reason, r.origin]),
      [
        ['domain_not_allowed', ''],
        ['domain_not_allowed', 'https://lms.acme.example/path'],
        ['domain_not_allowed', 'null'],
      ],
    )
  })

  test('50 concurrent launches by distinct learners against a limit of 10: exactly 10 get in', async () => {
    const d = await createDispatch(t, tenant.testKey, {
      packageId: pkg,
      name: 'Licensed',
      licenseLimit: 10,
    })
    const learners = Array.from({ length: 50 }, (_, i) => `seat-${i}`)
    const results = await Promise.all(
      learners.map((learnerId) => frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId })),
    )
    const admitted = learners.filter((_, i) => results[i]?.statusCode === 200)
    assert.equal(admitted.length, 10)
    const keys = new Map(
      results
        .filter((r) => r.statusCode === 200)
        .map((r) => [r.json().learner_id, r.json().learner_key]),
    )
    for (const res of results.filter((r) => r.statusCode !== 200)) {
      assert.equal(await refusalOf(res), 'license_limit')
    }

    // Returning learners always get in, also all at once and with the dispatch full.
    const again = await Promise.all(
      [...admitted, ...admitted].map((learnerId) =>
        frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId, learnerKey: keys.get(learnerId) }),
      ),
    )
    assert.deepEqual(new Set(again.map((r) => r.statusCode)), new Set([200]))
    assert.equal(
      await refusalOf(await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'late' })),
      'license_limit',
    )

    const record = (await call('GET', `/dispatches/${d.id}`)).json() as DispatchRecord
    assert.equal(record.counts.uniqueLearners, 10)
    assert.equal(record.counts.launches, 30)
    assert.equal(record.counts.refusals, 41)
    const seats = await t.ctx.db.kysely
      .selectFrom('dispatch_learners')
      .select('learner_id')
      .where('dispatch_id', '=', d.id)
      .execute()
    assert.deepEqual(seats.map((s) => s.learner_id).sort(), [...admitted].sort())
    const sessions = await call('GET', `/sessions?dispatch_id=${d.id}&limit=200`)
    const sessionLearners = new Set(
      sessions.json().sessions.map((s: { learner_id: string }) => s.learner_id),
    )
    assert.deepEqual([...sessionLearners].sort(), [...admitted].sort())
    assert.equal(sessions.json().sessions.length, 10, 'one open attempt per learner')

    // Raising the limit admits more; lowering it keeps those already in.
    await call('PATCH', `/dispatches/${d.id}`, { licenseLimit: 11 })
    const late = await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'late' })
    assert.equal(late.statusCode, 200)
    await call('PATCH', `/dispatches/${d.id}`, { licenseLimit: 2 })
    assert.equal(
      (
        await frameLaunch(t, d, {
          origin: LMS_ORIGIN,
          learnerId: 'late',
          learnerKey: late.json().learner_key,
        })
      ).statusCode,
      200,
    )
    assert.equal(
      await refusalOf(await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'later' })),
      'license_limit',
    )
  })

  test('a forged, foreign or missing token answers 401; a missing learner or archived package is refused', async () => {
    const d = await createDispatch(t, tenant.testKey, { packageId: pkg, name: 'Tokens' })
    const other = await createDispatch(t, tenant.testKey, { packageId: pkg, name: 'Other' })
    const otherToken = new URL(other.launchUrl).searchParams.get('token') as string
    for (const token of [otherToken, 'forged.token', `${otherToken.split('.')[0]}.AAAA`]) {
      const res = await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: 'x', token })
      assert.equal(res.statusCode, 401, res.body)
    }
    const missing = await t.content.inject({
      method: 'POST',
      url: `/dispatch/${d.id}/launch`,
      payload: { origin: LMS_ORIGIN, learner_id: 'x' },
    })
    assert.equal(missing.statusCode, 400)
    assert.equal(
      await refusalOf(await frameLaunch(t, d, { origin: LMS_ORIGIN, learnerId: '  ' })),
      'no_learner',
    )

    const archivedPkg = await uploadGolf(t, tenant.testKey, 'singlescobasic.zip')
    const d2 = await createDispatch(t, tenant.testKey, { packageId: archivedPkg, name: 'Gone' })
    await call('POST', `/packages/${archivedPkg}/archive`)
    assert.equal(
      await refusalOf(await frameLaunch(t, d2, { origin: LMS_ORIGIN, learnerId: 'x' })),
      'package_unavailable',
    )
  })

  test('the frame page is served with a strict policy and carries no data', async () => {
    const d = await createDispatch(t, tenant.testKey, { packageId: pkg, name: 'Frame' })
    const frame = await t.content.inject({
      url: new URL(d.launchUrl).pathname + new URL(d.launchUrl).search,
    })
    assert.equal(frame.statusCode, 200)
    assert.match(frame.headers['content-security-policy'] as string, /script-src 'self'/)
    assert.doesNotMatch(
      frame.body,
      /dsp_|token/,
      'the page carries nothing; the script reads the URL',
    )
    const script = await t.content.inject({ url: '/dispatch/assets/frame.js' })
    assert.equal(script.statusCode, 200)
    assert.match(script.headers['content-type'] as string, /javascript/)
    assert.equal((await t.content.inject({ url: '/dispatch/not-an-id/frame' })).statusCode, 404)
  })
})
