import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { listAuditEvents } from '../../../src/modules/events/audit-event.repository.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { multiScoPackage } from '../sessions/multi-sco-package.ts'
import { launch, startPlayer, uploadGolf, uploadZip } from '../sessions/runtime-helpers.ts'
import { startNavigator } from './navigation-helpers.ts'

/** Issue 11 (runtime data integrity) and issue 10.10/10.11, over HTTP. */
describeEachDatabase('runtime data integrity', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let scorm2004: string
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('growth')
    scorm2004 = await uploadGolf(t, tenant.testKey, 'RuntimeBasicCalls_SCORM20043rdEdition.zip')
  })
  after(() => t.close())

  const detail = async (sessionId: string) => {
    const res = await t.app.inject({
      url: `/api/v1/sessions/${sessionId}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }
  const events = async (entityId: string) =>
    listAuditEvents(t.ctx.db.kysely, { tenantId: tenant.tenantId, mode: 'test' }, entityId)

  /** A 2004 quiz attempt taken to the end: interactions, score, location, session time. */
  async function completedQuiz(learner: string) {
    const launched = await launch(t, tenant.testKey, scorm2004, learner)
    const player = await startPlayer(t, launched.launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    const api = sco.api
    assert.equal(api.Initialize?.(''), 'true')
    for (let i = 0; i < 5; i++) {
      api.SetValue?.(`cmi.interactions.${i}.id`, `q${i}`)
      api.SetValue?.(`cmi.interactions.${i}.type`, 'choice')
      api.SetValue?.(`cmi.interactions.${i}.learner_response`, 'a')
      api.SetValue?.(`cmi.interactions.${i}.result`, i < 3 ? 'correct' : 'incorrect')
    }
    api.SetValue?.('cmi.location', 'quiz-end')
    api.SetValue?.('cmi.score.raw', '7')
    api.SetValue?.('cmi.score.scaled', '0.7')
    api.SetValue?.('cmi.completion_status', 'completed')
    api.SetValue?.('cmi.success_status', 'failed')
    api.SetValue?.('cmi.session_time', 'PT13.78S')
    api.Commit?.('')
    assert.equal(api.Terminate?.(''), 'true')
    await sco.flush()
    return { ...launched, player, itemId: player.started.current_item_id as string }
  }

  test('reopening a finished attempt’s launch URL opens it in review mode and changes nothing', async () => {
    const quiz = await completedQuiz('rita@example.com')
    const before = await detail(quiz.session_id)
    assert.equal(before.completion_status, 'completed')
    assert.equal(before.cmi_data['cmi.interactions.4.result'], 'incorrect')
    assert.equal(before.cmi_data['cmi.total_time'], 'PT13.78S')
    const keys = Object.keys(before.cmi_data).length

    // The same URL (valid 24 h) opened again; the tab closed without any action.
    const again = await startPlayer(t, quiz.launch_url)
    assert.equal(again.started.mode, 'review')
    const review = await again.deliver(quiz.itemId)
    assert.equal(review.delivery.launch_data.mode, 'review')
    assert.equal(review.api.Initialize?.(''), 'true')
    assert.equal(review.api.GetValue?.('cmi.mode'), 'review')
    assert.equal(review.api.GetValue?.('cmi.interactions._count'), '5')
    assert.equal(review.api.GetValue?.('cmi.location'), 'quiz-end')
    assert.equal(review.api.GetValue?.('cmi.total_time'), 'PT13.78S')
    // Whatever the review launch sets is acknowledged, never stored.
    review.api.SetValue?.('cmi.location', 'start')
    review.api.SetValue?.('cmi.success_status', 'passed')
    assert.equal(review.api.Terminate?.(''), 'true')
    const answers = await review.flush()
    assert.ok(answers.every((a) => a.applied === false && a.review === true))
    // And a launch that is opened and abandoned (never committing) is ended by the next one.
    const third = await startPlayer(t, quiz.launch_url)
    await third.deliver(quiz.itemId)
    await third.deliver(quiz.itemId)

    const afterwards = await detail(quiz.session_id)
    assert.equal(Object.keys(afterwards.cmi_data).length, keys)
    assert.deepEqual(afterwards.cmi_data, before.cmi_data)
    assert.equal(afterwards.success_status, 'failed')
    assert.equal(afterwards.score.raw, 7)
    const next = await launch(t, tenant.testKey, scorm2004, 'rita@example.com')
    assert.equal(next.attempt, 2, 'launching the package again starts a new attempt')
    assert.deepEqual((await detail(quiz.session_id)).cmi_data, before.cmi_data)
  })

  test('a finished attempt is closed to writes, even with its own runtime token (10.10)', async () => {
    const quiz = await completedQuiz('sam@example.com')
    const before = await detail(quiz.session_id)
    // The attempt's old runtime token (still valid) opens a new delivery and commits "passed".
    const sco = await quiz.player.deliver(quiz.itemId)
    const res = await sco.post({
      seq: 1,
      fromSeq: 0,
      final: true,
      values: { 'cmi.success_status': 'passed', 'cmi.score.scaled': '1' },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().applied, false)
    const afterwards = await detail(quiz.session_id)
    assert.deepEqual(afterwards.cmi_data, before.cmi_data)
    assert.equal(afterwards.success_status, 'failed')
    assert.deepEqual(
      (await events(quiz.session_id)).map((e) => e.type),
      ['session.completed', 'session.failed'],
    )
  })

  test('a session.failed event carries the failed session; times are ISO 8601 durations', async () => {
    const quiz = await completedQuiz('tom@example.com')
    const list = await events(quiz.session_id)
    const failed = list.find((e) => e.type === 'session.failed')
    assert.ok(failed, 'session.failed was recorded')
    assert.equal(failed.data.success_status, 'failed')
    assert.equal(failed.data.session_time, 'PT0H0M13.78S')
    const completed = list.find((e) => e.type === 'session.completed')
    assert.equal(completed?.data.completion_status, 'completed')
    const d = await detail(quiz.session_id)
    assert.equal(d.session_time, 'PT0H0M13.78S')
    assert.equal(d.total_time, 'PT0H0M13.78S')
    assert.equal(d.scos[0].total_time, 'PT0H0M13.78S')
    assert.equal(d.cmi_data['cmi.session_time'], 'PT13.78S', 'the SCO’s own value stays as sent')
  })

  test('a jump far past the last commit is refused and the launch keeps working (10.11)', async () => {
    const { launch_url, session_id } = await launch(t, tenant.testKey, scorm2004, 'uma@example.com')
    const player = await startPlayer(t, launch_url)
    const sco = await player.deliver(player.started.current_item_id)
    const ok = await sco.post({ seq: 1, fromSeq: 0, final: false, values: { 'cmi.location': 'a' } })
    assert.equal(ok.json().last_seq, 1)
    const jump = await sco.post({
      seq: Number.MAX_SAFE_INTEGER,
      fromSeq: 1,
      final: false,
      values: { 'cmi.location': 'evil' },
    })
    assert.equal(jump.statusCode, 409, jump.body)
    assert.equal(jump.json().error.code, 'sequence_jump')
    assert.equal(jump.json().error.details.last_seq, 1)
    const next = await sco.post({
      seq: 2,
      fromSeq: 1,
      final: false,
      values: { 'cmi.location': 'b' },
    })
    assert.equal(next.json().applied, true)
    // A delta covering a few of the player's commits (sendBeacon's remainder) still applies.
    const merged = await sco.post({
      seq: 5,
      fromSeq: 2,
      final: false,
      values: { 'cmi.location': 'c' },
    })
    assert.equal(merged.json().applied, true)
    assert.equal((await detail(session_id)).cmi_data['cmi.location'], 'c')
  })

  for (const version of ['1.2', '2004'] as const) {
    test(`SCORM ${version}: a multi-SCO session follows every SCO, not the first one to pass`, async () => {
      const pkg = await uploadZip(t, tenant.testKey, multiScoPackage(version, 3))
      const learner = `multi-${version}@example.com`
      const first = await launch(t, tenant.testKey, pkg, learner)
      const pass = async (launchUrl: string, itemId: string) => {
        const player = await startPlayer(t, launchUrl)
        const sco = await player.deliver(itemId)
        const values: Record<string, string> =
          version === '1.2'
            ? { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '90' }
            : {
                'cmi.completion_status': 'completed',
                'cmi.success_status': 'passed',
                'cmi.score.scaled': '0.9',
              }
        const res = await sco.post({ seq: 1, fromSeq: 0, final: true, values })
        assert.equal(res.statusCode, 200, res.body)
        return res.json().session
      }
      const afterOne = await pass(first.launch_url, 'item_1')
      assert.equal(afterOne.completion_status, 'incomplete')
      assert.equal(afterOne.success_status, 'unknown')
      assert.equal(afterOne.progress_percent, 33.3)
      assert.deepEqual(await events(first.session_id), [])
      const resumed = await launch(t, tenant.testKey, pkg, learner)
      assert.equal(resumed.session_id, first.session_id, 'the attempt is resumed, not replaced')
      assert.equal(resumed.attempt, 1)
      await pass(resumed.launch_url, 'item_2')
      const done = await pass(resumed.launch_url, 'item_3')
      assert.equal(done.completion_status, 'completed')
      assert.equal(done.success_status, 'passed')
      const list = await events(first.session_id)
      assert.deepEqual(
        list.map((e) => e.type),
        ['session.completed'],
      )
      assert.equal(list[0]?.data.completion_status, 'completed')
      assert.equal(list[0]?.data.success_status, 'passed')
      const d = await detail(first.session_id)
      assert.deepEqual(Object.keys(d.cmi_data).sort(), ['item_1', 'item_2', 'item_3'])
      if (version === '2004') {
        // The sequencer ends a multi-SCO SCORM 2004 attempt (Exit All), not the root's rollup.
        const same = await launch(t, tenant.testKey, pkg, learner)
        assert.equal(same.attempt, 1)
        const nav = await startNavigator(t, same.launch_url)
        assert.equal((await nav.navigate({ request: 'exitAll' })).ended?.attempt_ended, true)
      }
      const next = await launch(t, tenant.testKey, pkg, learner)
      assert.equal(next.attempt, 2)
    })
  }

  test('a session that older code marked passed after its first SCO is resumed, corrected', async () => {
    const pkg = await uploadZip(t, tenant.testKey, multiScoPackage('2004', 2))
    const first = await launch(t, tenant.testKey, pkg, 'stale@example.com')
    const player = await startPlayer(t, first.launch_url)
    const sco = await player.deliver('item_1')
    const values = { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed' }
    await sco.post({ seq: 1, fromSeq: 0, final: true, values })
    // What the code before the one-rollup fix wrote.
    await t.ctx.db.kysely
      .updateTable('sessions')
      .set({ completion_status: 'completed', success_status: 'passed', progress_percent: 100 })
      .where('id', '=', first.session_id)
      .execute()
    const next = await launch(t, tenant.testKey, pkg, 'stale@example.com')
    assert.equal(next.session_id, first.session_id)
    assert.equal(next.attempt, 1)
    const d = await detail(first.session_id)
    assert.deepEqual(
      [d.completion_status, d.success_status, d.progress_percent],
      ['incomplete', 'unknown', 50],
    )
  })

  test('GET /sessions?include=cmi_data carries runtime data; without it, and in CSV, none', async () => {
    const quiz = await completedQuiz('val@example.com')
    const url = `/api/v1/sessions?learner_id=${encodeURIComponent('val@example.com')}`
    const plain = await t.app.inject({ url, headers: bearer(tenant.testKey) })
    assert.equal(plain.json().sessions[0].cmi_data, undefined)
    const withData = await t.app.inject({
      url: `${url}&include=cmi_data`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(withData.statusCode, 200, withData.body)
    const [session] = withData.json().sessions
    assert.equal(session.session_id, quiz.session_id)
    assert.deepEqual(session.cmi_data, (await detail(quiz.session_id)).cmi_data)
    assert.equal(session.session_time, 'PT0H0M13.78S')
    const csv = await t.app.inject({
      url: `${url}&include=cmi_data&format=csv`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(csv.statusCode, 200)
    assert.ok(!csv.body.includes('cmi.'), 'CSV is unchanged')
    assert.ok(csv.body.includes('PT0H0M13.78S'))
  })
})
