import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { multiScoPackage } from '../sessions/multi-sco-package.ts'
import { launch, uploadZip } from '../sessions/runtime-helpers.ts'
import { ctsPackage, sequencedPackage } from '../sessions/sequenced-package.ts'
import { type DeliveryJson, startNavigator } from './navigation-helpers.ts'

const DONE = { 'cmi.completion_status': 'completed', 'cmi.success_status': 'passed' }

/**
 * A course the learner may navigate freely, except: `hidden` is hidden from choice, and once in
 * `locked` (choiceExit false) no choice may take the learner out of it.
 */
const FREE_COURSE = sequencedPackage({
  id: 'free',
  items: [
    { id: 'intro' },
    { id: 'locked', sequencing: '<imsss:controlMode choiceExit="false"/>' },
    {
      id: 'hidden',
      sequencing: `<imsss:sequencingRules><imsss:preConditionRule>
        <imsss:ruleConditions><imsss:ruleCondition condition="always"/></imsss:ruleConditions>
        <imsss:ruleAction action="hiddenFromChoice"/>
      </imsss:preConditionRule></imsss:sequencingRules>`,
    },
    { id: 'outro' },
  ],
  orgSequencing: '<imsss:controlMode choice="true" flow="true"/>',
})

/** Issue 14 points 2, 3 and 5: the server decides SCORM 2004 navigation. */
describeEachDatabase('SCORM 2004 navigation decided by the server', (database) => {
  let t: TestApp
  let tenant: TestTenant
  /** CTS CM-01: three SCOs, the organization flows and forbids choice. */
  let forced: string
  let free: string
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('growth')
    forced = await uploadZip(t, tenant.testKey, ctsPackage('CM-01'))
    free = await uploadZip(t, tenant.testKey, FREE_COURSE)
  })
  after(() => t.close())

  const stored = async (sessionId: string) =>
    t.ctx.db.kysely
      .selectFrom('sessions')
      .select(['sequencing_state', 'sequencing_version', 'sequencing_delivery_id', 'open'])
      .where('id', '=', sessionId)
      .executeTakeFirstOrThrow()
  const detail = async (sessionId: string) => {
    const res = await t.app.inject({
      url: `/api/v1/sessions/${sessionId}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }

  test('start, continue and previous follow the flow; every delivery carries ui and request_valid', async () => {
    const c = await launch(t, tenant.testKey, forced, 'flow@example.com')
    const nav = await startNavigator(t, c.launch_url)
    assert.equal(nav.started.ui.continue.enabled, false, 'nothing is delivered before start')
    assert.ok(Array.isArray(nav.started.ui.toc))
    const first = await nav.navigate({ request: 'start' })
    assert.equal(first.delivery?.item_id, 'activity_1')
    assert.equal(first.ended, null)
    assert.equal(first.delivery?.request_valid?.continue, true)
    assert.equal(first.delivery?.request_valid?.previous, false)
    assert.equal(first.delivery?.request_valid?.choice.activity_3, false, 'choice="false"')
    assert.deepEqual(first.delivery?.ui, first.ui)
    await nav.run(first.delivery as DeliveryJson).finish(DONE)
    const second = await nav.navigate({
      request: 'continue',
      delivery_id: first.delivery?.delivery_id,
    })
    assert.equal(second.delivery?.item_id, 'activity_2')
    assert.equal(second.delivery?.request_valid?.previous, true)
    const back = await nav.navigate({
      request: 'previous',
      delivery_id: second.delivery?.delivery_id,
    })
    assert.equal(back.delivery?.item_id, 'activity_1')
    // A reload relaunches the Current Activity; another item is not the player's to pick.
    const reload = await nav.deliveries('activity_1')
    assert.equal(reload.statusCode, 200, reload.body)
    assert.equal(typeof reload.json().request_valid.continue, 'boolean')
    const skip = await nav.deliveries('activity_3')
    assert.equal(skip.statusCode, 409, skip.body)
    assert.equal(skip.json().error.code, 'navigation_refused')
    const shown = await detail(c.session_id)
    assert.ok(shown.sequencing.activities.some((a: { id: string }) => a.id === 'activity_1'))
  })

  test('a forged choice is refused with the SN code, and nothing changes', async () => {
    const c = await launch(t, tenant.testKey, forced, 'forger@example.com')
    const nav = await startNavigator(t, c.launch_url)
    const first = await nav.navigate({ request: 'start' })
    const before = await stored(c.session_id)
    const res = await nav.request({
      request: 'choice',
      target: 'activity_3',
      delivery_id: first.delivery?.delivery_id,
    })
    assert.equal(res.statusCode, 409, res.body)
    assert.equal(res.json().error.code, 'navigation_refused')
    assert.equal(res.json().error.details.exception, 'NB.2.1-10')
    assert.deepEqual(await stored(c.session_id), before)
  })

  test('choice goes where the rules allow; hidden targets and leaving a choiceExit=false SCO are refused', async () => {
    const c = await launch(t, tenant.testKey, free, 'chooser@example.com')
    const nav = await startNavigator(t, c.launch_url)
    const intro = await nav.navigate({ request: 'start' })
    assert.equal(intro.delivery?.item_id, 'intro')
    assert.equal(intro.delivery?.request_valid?.choice.hidden, false)
    assert.equal(intro.delivery?.request_valid?.choice.outro, true)
    const hidden = await nav.request({
      request: 'choice',
      target: 'hidden',
      delivery_id: intro.delivery?.delivery_id,
    })
    assert.equal(hidden.statusCode, 409, hidden.body)
    assert.equal(hidden.json().error.details.exception, 'SB.2.9-3')
    const outro = await nav.navigate({
      request: 'choice',
      target: 'outro',
      delivery_id: intro.delivery?.delivery_id,
    })
    assert.equal(outro.delivery?.item_id, 'outro')
    const locked = await nav.navigate({
      request: 'choice',
      target: 'locked',
      delivery_id: outro.delivery?.delivery_id,
    })
    assert.equal(locked.delivery?.item_id, 'locked')
    assert.equal(locked.delivery?.request_valid?.choice.intro, false)
    const before = await stored(c.session_id)
    const out = await nav.request({
      request: 'choice',
      target: 'intro',
      delivery_id: locked.delivery?.delivery_id,
    })
    assert.equal(out.statusCode, 409, out.body)
    assert.equal(out.json().error.details.exception, 'NB.2.1-8')
    assert.deepEqual(await stored(c.session_id), before)
    const onward = await nav.navigate({
      request: 'continue',
      delivery_id: locked.delivery?.delivery_id,
    })
    assert.equal(onward.delivery?.item_id, 'hidden', 'Continue still flows into it')
  })

  test('abandon throws the results of the SCO it leaves away: no rollup, no global objective', async () => {
    const zip = sequencedPackage({
      id: 'abandoned',
      items: [
        {
          id: 'quiz',
          sequencing: `<imsss:objectives><imsss:primaryObjective objectiveID="q">
            <imsss:mapInfo targetObjectiveID="g-quiz" writeSatisfiedStatus="true"/>
          </imsss:primaryObjective></imsss:objectives>`,
        },
        { id: 'next' },
      ],
      orgSequencing: '<imsss:controlMode choice="true" flow="true"/>',
    })
    const pkg = await uploadZip(t, tenant.testKey, zip)
    const c = await launch(t, tenant.testKey, pkg, 'quitter@example.com')
    const nav = await startNavigator(t, c.launch_url)
    const quiz = await nav.navigate({ request: 'start' })
    assert.equal(quiz.delivery?.item_id, 'quiz')
    await nav.run(quiz.delivery as DeliveryJson).finish(DONE)
    // Until the SCO is left its results are provisional: the session shows them…
    const shown = await detail(c.session_id)
    assert.equal(shown.sequencing.global_objectives[0].success_status, 'passed')
    const before = await stored(c.session_id)
    // …and Abandon (no End Attempt, SN book TB.2.3) drops them.
    const left = await nav.navigate({ request: 'abandon', delivery_id: quiz.delivery?.delivery_id })
    assert.equal(left.delivery, null)
    const after = await stored(c.session_id)
    const state = JSON.parse(after.sequencing_state ?? 'null')
    assert.equal(state.activities.quiz.active, undefined)
    assert.equal(state.activities.quiz.objectives?.q?.satisfied, undefined)
    assert.ok(Number(after.sequencing_version) > Number(before.sequencing_version))
    const now = await detail(c.session_id)
    assert.equal(now.sequencing.global_objectives[0].success_status, 'unknown')
    assert.equal(now.completion_status === 'completed', false)
    assert.equal(now.success_status, 'unknown')
  })

  test('start without flow waits for the learner to pick from the contents', async () => {
    const pkg = await uploadZip(t, tenant.testKey, multiScoPackage('2004', 3))
    const c = await launch(t, tenant.testKey, pkg, 'picker@example.com')
    const nav = await startNavigator(t, c.launch_url)
    const started = await nav.navigate({ request: 'start' })
    assert.equal(started.delivery, null)
    assert.equal(started.ended, null)
    assert.ok(started.ui?.toc.some((e) => e.id === 'item_2' && e.selectable))
    const picked = await nav.navigate({ request: 'choice', target: 'item_2' })
    assert.equal(picked.delivery?.item_id, 'item_2')
  })

  test('concurrent navigation requests over HTTP never fork the attempt', async () => {
    const c = await launch(t, tenant.testKey, forced, 'tabs@example.com')
    const nav = await startNavigator(t, c.launch_url)
    const first = await nav.navigate({ request: 'start' })
    await t.content.listen({ host: '127.0.0.1', port: 0 })
    try {
      const { port } = t.content.server.address() as AddressInfo
      const body = JSON.stringify({
        request: 'continue',
        delivery_id: first.delivery?.delivery_id,
      })
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          fetch(`http://127.0.0.1:${port}/runtime/sessions/${c.session_id}/navigation`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${nav.started.runtime_token}`,
              'content-type': 'application/json',
            },
            body,
          }).then(async (r) => ({ status: r.status, json: await r.json() })),
        ),
      )
      const ok = answers.filter((a) => a.status === 200)
      assert.equal(ok.length, 1, JSON.stringify(answers))
      for (const a of answers.filter((x) => x.status !== 200)) {
        assert.equal(a.status, 409)
        assert.equal(a.json.error.code, 'navigation_refused')
      }
      const winner = ok[0]?.json.delivery
      assert.equal(winner.item_id, 'activity_2')
      const row = await stored(c.session_id)
      assert.equal(JSON.parse(row.sequencing_state ?? '{}').current, 'activity_2')
      assert.equal(row.sequencing_delivery_id, winner.delivery_id)
      const deliveries = await t.ctx.db.kysely
        .selectFrom('sco_deliveries')
        .select(['id', 'item_id', 'ended_at'])
        .where('session_id', '=', c.session_id)
        .execute()
      assert.deepEqual(deliveries.map((d) => d.item_id).sort(), ['activity_1', 'activity_2'])
      assert.deepEqual(
        deliveries.filter((d) => d.ended_at === null).map((d) => d.id),
        [winner.delivery_id],
      )
    } finally {
      await t.content.close()
    }
  })
})

describeEachDatabase('SCORM 2004 suspend all, resume all and exit all', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let forced: string
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('growth')
    forced = await uploadZip(t, tenant.testKey, ctsPackage('CM-01'))
  })
  after(() => t.close())

  const stored = async (sessionId: string) =>
    t.ctx.db.kysely
      .selectFrom('sessions')
      .select(['sequencing_state', 'sequencing_version', 'open', 'completion_status'])
      .where('id', '=', sessionId)
      .executeTakeFirstOrThrow()

  test('suspend all, then a new launch resumes the tree; exit all ends the attempt', async () => {
    const learner = 'suspender@example.com'
    const c = await launch(t, tenant.testKey, forced, learner)
    let nav = await startNavigator(t, c.launch_url)
    const first = await nav.navigate({ request: 'start' })
    await nav.run(first.delivery as DeliveryJson).finish(DONE)
    const second = await nav.navigate({
      request: 'continue',
      delivery_id: first.delivery?.delivery_id,
    })
    await nav.run(second.delivery as DeliveryJson).finish({ 'cmi.location': 'page 4' })
    const suspended = await nav.navigate({
      request: 'suspendAll',
      delivery_id: second.delivery?.delivery_id,
    })
    assert.equal(suspended.delivery, null)
    assert.deepEqual(suspended.ended, { reason: 'suspended', attempt_ended: false })

    const again = await launch(t, tenant.testKey, forced, learner)
    assert.equal(again.session_id, c.session_id, 'a suspended attempt is resumed')
    nav = await startNavigator(t, again.launch_url)
    assert.equal(nav.started.mode, 'normal')
    const resumed = await nav.navigate({ request: 'start' })
    assert.equal(resumed.delivery?.item_id, 'activity_2')
    assert.equal(resumed.delivery?.launch_data.entry, 'resume')
    assert.equal(resumed.delivery?.launch_data.values?.['cmi.location'], 'page 4')
    const ui = resumed.ui?.toc ?? []
    assert.ok(ui.length > 0)

    const exited = await nav.navigate({
      request: 'exitAll',
      delivery_id: resumed.delivery?.delivery_id,
    })
    assert.equal(exited.delivery, null)
    assert.equal(exited.ended?.attempt_ended, true)
    // A replay finds the attempt closed: it ends nothing again and changes nothing.
    const closed = await stored(c.session_id)
    assert.equal(closed.open, 0)
    const replay = await nav.navigate({
      request: 'exitAll',
      delivery_id: resumed.delivery?.delivery_id,
    })
    assert.equal(replay.delivery, null)
    assert.deepEqual(await stored(c.session_id), closed)
    const review = await startNavigator(t, c.launch_url)
    assert.equal(review.started.mode, 'review', 'the ended attempt reopens in review')
    const next = await launch(t, tenant.testKey, forced, learner)
    assert.equal(next.attempt, 2)
    assert.notEqual(next.session_id, c.session_id)
  })
})

describeEachDatabase('SCORM 1.2 navigation (simple flow)', (database) => {
  let t: TestApp
  let tenant: TestTenant
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('growth')
  })
  after(() => t.close())

  test('start, continue, choice and continue past the end', async () => {
    const pkg = await uploadZip(t, tenant.testKey, multiScoPackage('1.2', 3))
    const c = await launch(t, tenant.testKey, pkg, 'simple@example.com')
    const nav = await startNavigator(t, c.launch_url)
    const first = await nav.navigate({ request: 'start' })
    assert.equal(first.delivery?.item_id, 'item_1')
    assert.equal(first.ui, null)
    const second = await nav.navigate({ request: 'continue' })
    assert.equal(second.delivery?.item_id, 'item_2')
    const third = await nav.navigate({ request: 'choice', target: 'item_3' })
    assert.equal(third.delivery?.item_id, 'item_3')
    const end = await nav.navigate({ request: 'continue' })
    assert.equal(end.delivery, null)
    // SCORM 1.2: each SCO left without a status is completed (LMSFinish), so the course is.
    assert.deepEqual(end.ended, { reason: 'completed', attempt_ended: true })
    const bad = await nav.request({ request: 'choice', target: 'nope' })
    assert.equal(bad.statusCode, 409)
    const malformed = await nav.request({ request: 'sideways' })
    assert.equal(malformed.statusCode, 400)
  })
})
