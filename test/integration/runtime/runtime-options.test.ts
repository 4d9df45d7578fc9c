import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'

const STORYLINE_ID = 'SL360 LMS SCORM 2004'

/** Package runtime options and warnings, runtime-data limits, and token expiry over HTTP. */
describeEachDatabase('runtime options, warnings, limits and token expiry', (database) => {
  let t: TestApp
  let tenant: TestTenant
  const clock = new ManualClock('2026-11-24T08:00:00.000Z')
  before(async () => {
    t = await createTestApp(database(), { clock })
    tenant = await t.createTenant('growth')
  })
  after(() => t.close())

  async function open(pkg: string, learner: string) {
    const launched = await launch(t, tenant.testKey, pkg, learner)
    const player = await startPlayer(t, launched.launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    return { ...launched, player, sco }
  }
  const getPackage = async (id: string) =>
    (await t.app.inject({ url: `/api/v1/packages/${id}`, headers: bearer(tenant.testKey) })).json()
  const interaction = (i: number) => ({
    [`cmi.interactions.${i}.id`]: `q${i}`,
    [`cmi.interactions.${i}.objectives.0.id`]: STORYLINE_ID,
  })

  test('Storyline objective ids: refused with 406 by default and shown as a package warning; accepted once the package is lenient', async () => {
    const pkg = await uploadGolf(t, tenant.testKey, 'RuntimeBasicCalls_SCORM20043rdEdition.zip')
    assert.deepEqual((await getPackage(pkg)).package.runtime_options, {
      lenient_identifiers: false,
    })
    const strict = await open(pkg, 'sl-strict@example.com')
    assert.equal(strict.sco.delivery.data_model_options?.lenientIdentifiers, undefined)
    const refused = await t.content.inject({
      method: 'POST',
      url: `/runtime/sessions/${strict.session_id}/commits`,
      headers: { authorization: `Bearer ${strict.player.started.runtime_token}` },
      payload: {
        delivery_id: strict.sco.delivery.delivery_id,
        delta: { seq: 1, fromSeq: 0, final: false, values: interaction(0) },
        // What the player's data model refused before the commit (the player reports it).
        refused: [
          { element: 'cmi.interactions.1.objectives.0.id', value: STORYLINE_ID, error_code: 406 },
        ],
      },
    })
    assert.equal(refused.statusCode, 200, refused.body)
    assert.deepEqual(
      refused.json().errors.map((e: { element: string; code: number }) => [e.element, e.code]),
      [['cmi.interactions.0.objectives.0.id', 406]],
    )
    const warned = await getPackage(pkg)
    assert.deepEqual(
      warned.runtime_warnings.map((w: Record<string, unknown>) => [
        w.code,
        w.element,
        w.example,
        w.count,
      ]),
      [['type_mismatch', 'cmi.interactions.N.objectives.N.id', STORYLINE_ID, 2]],
    )
    assert.equal(warned.runtime_warnings[0].last_seen_at, clock.now().toISOString())

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/packages/${pkg}`,
      headers: bearer(tenant.testKey),
      payload: { runtime_options: { lenient_identifiers: true } },
    })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().package.runtime_options.lenient_identifiers, true)
    clock.advance(31_000) // the runtime re-reads options after 30 s
    const lenient = await open(pkg, 'sl-lenient@example.com')
    assert.equal(lenient.sco.delivery.data_model_options?.lenientIdentifiers, true)
    const ok = await lenient.sco.post({ seq: 1, fromSeq: 0, final: false, values: interaction(0) })
    assert.deepEqual(ok.json().errors, [])
    const session = (
      await t.app.inject({
        url: `/api/v1/sessions/${lenient.session_id}`,
        headers: bearer(tenant.testKey),
      })
    ).json()
    assert.equal(session.cmi_data['cmi.interactions.0.objectives.0.id'], STORYLINE_ID)
    const bad = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/packages/${pkg}`,
      headers: bearer(tenant.testKey),
      payload: { runtime_options: { lenient_identifiers: 'yes' } },
    })
    assert.equal(bad.statusCode, 400)
  })

  test('SCORM 2004 array limits (SPMs) and the per-attempt data limit answer 351 to the SCO', async () => {
    const pkg = await uploadGolf(t, tenant.testKey, 'RuntimeBasicCalls_SCORM20043rdEdition.zip')
    const { sco, session_id } = await open(pkg, 'limits@example.com')
    const values: Record<string, string> = {}
    for (let i = 0; i <= 250; i++) values[`cmi.interactions.${i}.id`] = `q${i}`
    for (let i = 0; i <= 10; i++) values[`cmi.interactions.0.objectives.${i}.id`] = `o${i}`
    values['cmi.location'] = 'x'.repeat(1001)
    const res = await sco.post({ seq: 1, fromSeq: 0, final: false, values })
    const errors = res.json().errors as Array<{ element: string; code: number }>
    assert.deepEqual(errors.map((e) => [e.element, e.code]).sort(), [
      ['cmi.interactions.0.objectives.10.id', 351],
      ['cmi.interactions.250.id', 351],
      ['cmi.location', 351],
    ])
    // One attempt holds at most 1 000 000 characters of runtime data (names plus values).
    const comments = Object.fromEntries(
      Array.from({ length: 240 }, (_, i) => [
        `cmi.comments_from_learner.${i}.comment`,
        'c'.repeat(4000),
      ]),
    )
    const filled = await sco.post({ seq: 2, fromSeq: 1, final: false, values: comments })
    assert.deepEqual(filled.json().errors, [])
    const over = await sco.post({
      seq: 3,
      fromSeq: 2,
      final: false,
      values: { 'cmi.suspend_data': 's'.repeat(64000), 'cmi.location': 'small' },
    })
    assert.deepEqual(
      over
        .json()
        .errors.map((e: { element: string; code: number; kind?: string }) => [
          e.element,
          e.code,
          e.kind,
        ]),
      [['cmi.suspend_data', 351, 'data-full']],
    )
    const stored = (
      await t.app.inject({ url: `/api/v1/sessions/${session_id}`, headers: bearer(tenant.testKey) })
    ).json().cmi_data as Record<string, string>
    assert.equal(stored['cmi.location'], 'small', 'what fits is still stored')
    assert.equal(stored['cmi.suspend_data'], undefined)
    const chars = Object.entries(stored).reduce((n, [k, v]) => n + k.length + v.length, 0)
    assert.ok(chars <= 1_000_000, `the record holds ${chars} characters`)
    const warnings = (await getPackage(pkg)).runtime_warnings
    assert.ok(warnings.some((w: { code: string }) => w.code === 'data_full'))
  })

  test('launch tokens expire after 24 h and runtime tokens after 12 h, over HTTP', async () => {
    const pkg = await uploadGolf(t, tenant.testKey, 'RuntimeBasicCalls_SCORM20043rdEdition.zip')
    const first = await launch(t, tenant.testKey, pkg, 'expiry@example.com')
    const { sco, player, session_id } = await open(pkg, 'expiry@example.com')
    clock.advance(12 * 3600 * 1000 + 1000)
    const late = await sco.post({
      seq: 1,
      fromSeq: 0,
      final: false,
      values: { 'cmi.location': 'x' },
    })
    assert.equal(late.statusCode, 401, late.body)
    assert.match(late.json().error.message, /expired/)
    const lateDelivery = await t.content.inject({
      method: 'POST',
      url: `/runtime/sessions/${session_id}/deliveries`,
      headers: { authorization: `Bearer ${player.started.runtime_token}` },
      payload: { item_id: player.started.current_item_id },
    })
    assert.equal(lateDelivery.statusCode, 401)
    // The launch URL still works for 24 h, then no more.
    await startPlayer(t, first.launch_url)
    clock.advance(12 * 3600 * 1000)
    const url = new URL(first.launch_url)
    const expired = await t.content.inject({
      method: 'POST',
      url: `/runtime/sessions/${first.session_id}/start`,
      payload: { token: url.searchParams.get('token') },
    })
    assert.equal(expired.statusCode, 401, expired.body)
    assert.match(expired.json().error.message, /expired/)
  })
})
