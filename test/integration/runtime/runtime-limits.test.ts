import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import fc from 'fast-check'
import { validateDelta } from '../../../src/modules/scorm/data-model/index.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'

describeEachDatabase('runtime limits and hostile commits', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let roomy: TestTenant
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('growth')
    roomy = await t.createTenant('growth')
    await t.ctx.services.tenants.updateSettings(roomy.tenantId, { suspendDataLimit12: 64000 })
  })
  after(() => t.close())

  async function suspendDataResult(key: string, file: string, element: string, length: number) {
    const pkg = await uploadGolf(t, key, file)
    const { launch_url, session_id } = await launch(
      t,
      key,
      pkg,
      `limits-${length}-${Math.random()}`,
    )
    const player = await startPlayer(t, launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    const res = await sco.post({
      seq: 1,
      fromSeq: 0,
      final: false,
      values: { [element]: 'x'.repeat(length) },
    })
    assert.equal(res.statusCode, 200, res.body)
    const detail = (
      await t.app.inject({ url: `/api/v1/sessions/${session_id}`, headers: bearer(key) })
    ).json()
    return {
      errors: res.json().errors as Array<{ element: string; code: number }>,
      stored: detail.cmi_data[element] as string | undefined,
    }
  }

  test('SCORM 1.2 suspend data: 4096 characters by default, refused beyond with the 1.2 error code', async () => {
    const ok = await suspendDataResult(
      tenant.testKey,
      'singlescobasic.zip',
      'cmi.suspend_data',
      4096,
    )
    assert.deepEqual(ok.errors, [])
    assert.equal(ok.stored?.length, 4096)
    const over = await suspendDataResult(
      tenant.testKey,
      'singlescobasic.zip',
      'cmi.suspend_data',
      4097,
    )
    assert.equal(over.errors[0]?.element, 'cmi.suspend_data')
    assert.equal(over.errors[0]?.code, 405)
    assert.ok(!over.stored, 'nothing over the limit is stored')
  })

  test('a tenant allowed 64 000 characters for SCORM 1.2 gets them', async () => {
    const big = await suspendDataResult(
      roomy.testKey,
      'singlescobasic.zip',
      'cmi.suspend_data',
      64000,
    )
    assert.deepEqual(big.errors, [])
    assert.equal(big.stored?.length, 64000)
  })

  test('SCORM 2004 suspend data: 64 000 characters, refused beyond', async () => {
    const ok = await suspendDataResult(
      tenant.testKey,
      'RuntimeBasicCalls_SCORM20043rdEdition.zip',
      'cmi.suspend_data',
      64000,
    )
    assert.deepEqual(ok.errors, [])
    assert.equal(ok.stored?.length, 64000)
    const over = await suspendDataResult(
      tenant.testKey,
      'RuntimeBasicCalls_SCORM20043rdEdition.zip',
      'cmi.suspend_data',
      64001,
    )
    assert.equal(over.errors[0]?.element, 'cmi.suspend_data')
    assert.notEqual(over.stored?.length, 64001)
  })

  test('property: no commit body makes the server answer 500, and stored values stay valid', async () => {
    const pkg = await uploadGolf(t, tenant.testKey, 'RuntimeBasicCalls_SCORM20043rdEdition.zip')
    const { launch_url, session_id } = await launch(t, tenant.testKey, pkg, 'fuzzer')
    const player = await startPlayer(t, launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    const elements = [
      'cmi.location',
      'cmi.score.scaled',
      'cmi.completion_status',
      'cmi.interactions.0.id',
      'cmi.interactions.0.type',
      'cmi.objectives.0.id',
      'cmi.session_time',
      'cmi.exit',
      'cmi.learner_id',
      'adl.nav.request',
      'cmi.progress_measure',
      'nonsense.element',
    ]
    const value = fc.oneof(
      fc.string(),
      fc.constantFrom('1', '-2', '0.5', 'PT1M', 'completed', 'choice', 'suspend', ''),
      fc.double().map(String),
    )
    let seq = 0
    let applied = 0
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record({ delivery_id: fc.constant(sco.delivery.delivery_id), delta: fc.anything() }),
          fc.record({
            delivery_id: fc.constant(sco.delivery.delivery_id),
            delta: fc.record({
              seq: fc.constant(0),
              fromSeq: fc.constant(0),
              final: fc.constant(false),
              values: fc.dictionary(fc.constantFrom(...elements), value),
            }),
          }),
        ),
        async (body) => {
          const payload = body as { delta?: { seq: number; fromSeq: number } }
          if (payload?.delta && typeof payload.delta === 'object' && 'values' in payload.delta) {
            // Always the next commit of the chain, so valid deltas really are applied.
            payload.delta.seq = seq + 1
            payload.delta.fromSeq = seq
          }
          const res = await t.content.inject({
            method: 'POST',
            url: `/runtime/sessions/${session_id}/commits`,
            headers: {
              authorization: `Bearer ${player.started.runtime_token}`,
              'content-type': 'application/json',
            },
            payload: JSON.stringify(body ?? null),
          })
          assert.ok(res.statusCode < 500, `${res.statusCode}: ${res.body}`)
          if (res.statusCode === 200 && res.json().applied === true) {
            seq++
            applied++
          }
        },
      ),
      { numRuns: 150 },
    )
    const detail = (
      await t.app.inject({ url: `/api/v1/sessions/${session_id}`, headers: bearer(tenant.testKey) })
    ).json()
    const cmi = detail.cmi_data as Record<string, string>
    assert.ok(applied > 10, `only ${applied} fuzzed commits were applied`)
    // Every value the fuzzing stored is one the data model itself accepts: replayed onto a fresh
    // launch of the same SCO, none is refused (the stored scaled score is within -1..1, etc.).
    const stored = Object.fromEntries(
      Object.entries(cmi).filter(([element]) => elements.includes(element)),
    )
    const replay = validateDelta(
      '2004',
      { seq: 1, fromSeq: 0, values: stored, final: false },
      {
        initial: sco.delivery.launch_data,
      },
    )
    assert.deepEqual(replay.errors, [], JSON.stringify(stored))
    // And a known out-of-range value is refused while an in-range one is kept.
    seq++
    const last = await sco.post({
      seq,
      fromSeq: seq - 1,
      final: false,
      values: { 'cmi.score.scaled': '7' },
    })
    assert.equal(last.statusCode, 200, last.body)
    assert.deepEqual(
      last.json().errors.map((e: { element: string }) => e.element),
      ['cmi.score.scaled'],
    )
    assert.equal(cmi['cmi.learner_id'], 'fuzzer', 'a read-only element is never overwritten')
    assert.ok(
      ['completed', 'incomplete', 'not attempted', 'unknown'].includes(
        cmi['cmi.completion_status'] ?? 'unknown',
      ),
    )
  })
})
