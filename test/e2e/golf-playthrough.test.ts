/**
 * Rustici's four golf sample courses, uploaded through the API, launched for a learner, played
 * to the end in Chromium by clicking what a learner clicks, against the real server (API and
 * content apps listening on 127.0.0.1, real database: SQLite and PostgreSQL). What the SCO
 * reported is recorded from its own API calls (helpers/scorm-recorder.ts) and compared with what
 * `GET /api/v1/sessions/{id}` reads afterwards.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Frame, Page } from 'playwright-core'
import { listAuditEvents } from '../../src/modules/events/audit-event.repository.ts'
import type { TestTenant } from '../helpers/app.ts'
import { describeEachDatabase } from '../helpers/database.ts'
import { isSkip, launchBrowser, type TestBrowser } from './helpers/browser.ts'
import {
  answerAssessment,
  answerDialogs,
  coursePage,
  isoSeconds,
  nextUntil,
  PAGES_12,
  PAGES_2004,
  playerFrame,
  scoFrame,
  timespanSeconds,
} from './helpers/golf-learner.ts'
import { serveHostPage } from './helpers/host-page.ts'
import {
  type ApiClient,
  apiClient,
  type LiveServer,
  type SessionDetail,
  startLiveServer,
  until,
} from './helpers/live-server.ts'
import { recordScormCalls } from './helpers/scorm-recorder.ts'

const GOLF_2004 = 'RuntimeBasicCalls_SCORM20043rdEdition.zip'
const GOLF_12_BASIC = 'singlescobasic.zip'
const GOLF_12_MINIMUM = 'RuntimeMinimumCalls_SCORM12.zip'
const GOLF_12_PACKAGING = 'singlesco_scorm12.zip'

/** RuntimeMinimumCalls_SCORM12's launchable items, in the manifest's order. */
const MINIMUM_ITEMS = [
  'How to Play',
  'Par?',
  'Keeping Score',
  'Other Scoring Systems',
  'The Rules of Golf',
  'Playing Golf Quiz',
  'Taking Care of the Course',
  'Avoiding Distraction',
  'Playing Politely',
  'Etiquette Quiz',
  'Handicapping Overview',
  'Calculating a Handicap',
  'Calculating a Handicapped Score',
  'Handicapping Example',
  'Handicapping Quiz',
  'How to Have Fun Playing Golf',
  'How to Make Friends Playing Golf',
  'Having Fun Quiz',
]

/** Its quizzes (one shared page, told what to ask by the item's manifest parameters). */
const QUIZZES: Record<string, string> = {
  'Playing Golf Quiz': 'Playing',
  'Etiquette Quiz': 'Etiquette',
  'Handicapping Quiz': 'Handicapping',
  'Having Fun Quiz': 'HavingFun',
}

const SUSPEND_DATA = 'golf:seen=0-5;notes=par is 3 on a 175 yard hole'
const RESUME_QUESTION = 'Would you like to resume from where you previously left off?'
const SAVE_QUESTION = 'Would you like to save your progress to resume later?'

/** Per test; the whole file (both databases) stays well under three minutes. */
const TEST_TIMEOUT = 60_000
const HOOK_TIMEOUT = 60_000

let browser: TestBrowser | undefined
let skipReason: string | undefined

before(
  async () => {
    const launched = await launchBrowser()
    if (isSkip(launched)) skipReason = launched.skip
    else browser = launched
  },
  { timeout: HOOK_TIMEOUT },
)

after(async () => {
  await browser?.close()
})

/** A new tab with the SCO-call recorder and the dialog answers in place. */
async function learnerTab(b: TestBrowser) {
  const page = await b.context.newPage()
  page.setDefaultTimeout(10_000)
  const scorm = await recordScormCalls(page)
  const dialogs = answerDialogs(page)
  // E2E_DEBUG=1 prints the player's runtime requests, page errors and console output.
  if (process.env.E2E_DEBUG) {
    page.on('pageerror', (e) => console.log('pageerror', e.message))
    page.on('console', (m) => console.log('console', m.type(), m.text()))
    page.on('requestfinished', async (r) => {
      if (!r.url().includes('/runtime/')) return
      const res = await r.response()
      console.log(
        r.method(),
        r.url().replace(/^.*\/runtime/, ''),
        res?.status(),
        r.postData()?.slice(0, 300),
      )
    })
    page.on('requestfailed', (r) => console.log('FAILED', r.url(), r.failure()?.errorText))
  }
  return { page, scorm, dialogs }
}

/** Closes the tab the way a learner does (beforeunload, pagehide, unload all run). */
async function closeTab(page: Page): Promise<void> {
  const closed = page.waitForEvent('close')
  await page.close({ runBeforeUnload: true })
  await closed
}

type Api2004Method = 'GetValue' | 'SetValue'

/** Calls the player's API_1484_11 as the SCO would (through the recorder). */
function api2004(player: Frame, fn: Api2004Method, ...args: string[]): Promise<string> {
  return player.evaluate(
    ([name, values]) => {
      const api = (window as unknown as Record<string, Record<string, (...a: string[]) => string>>)
        .API_1484_11
      const call = api?.[name]
      if (!call) throw new Error('no API_1484_11 on the player window')
      return call.apply(api, values)
    },
    [fn, args] as const,
  )
}

/** What a resumed SCO finds in the data model. */
async function resumeState(player: Frame) {
  return {
    entry: await api2004(player, 'GetValue', 'cmi.entry'),
    location: await api2004(player, 'GetValue', 'cmi.location'),
    suspendData: await api2004(player, 'GetValue', 'cmi.suspend_data'),
    completion: await api2004(player, 'GetValue', 'cmi.completion_status'),
  }
}

/** The player's top bar says nothing about saving: every commit was acknowledged. */
async function assertSaved(player: Frame): Promise<void> {
  assert.equal(await player.locator('.cp-save').textContent(), '')
}

function sameSeconds(actual: number, expected: number, what: string) {
  assert.ok(Math.abs(actual - expected) < 0.011, `${what}: ${actual} s, expected ${expected} s`)
}

describeEachDatabase('golf courses played in Chromium against the real server', (database) => {
  let server: LiveServer
  let tenant: TestTenant
  let api: ApiClient
  const packages = new Map<string, string>()

  before(
    async () => {
      if (!browser) return
      server = await startLiveServer(database())
      tenant = await server.t.createTenant('growth')
      api = apiClient(server, tenant)
      for (const file of [GOLF_2004, GOLF_12_BASIC, GOLF_12_MINIMUM, GOLF_12_PACKAGING]) {
        packages.set(file, await api.uploadGolf(file))
      }
    },
    { timeout: HOOK_TIMEOUT },
  )

  after(async () => {
    await server?.close()
  })

  const pkg = (file: string) => packages.get(file) as string

  /** Reads the session until `done` holds (the last commits may still be on their way). */
  const settled = (sessionId: string, done: (s: SessionDetail) => boolean) =>
    until(`session ${sessionId} to settle`, async () => {
      const s = await api.session(sessionId)
      return done(s) ? s : undefined
    })

  test('SCORM 2004 (RuntimeBasicCalls): 14 pages, the knowledge check, Exit — completed, passed, with its score and time', {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const launched = await api.launch(pkg(GOLF_2004), 'ada@example.com')
    assert.ok(
      launched.launch_url.startsWith(`${server.contentUrl}/launch/${launched.session_id}?token=`),
    )
    const { page, scorm, dialogs } = await learnerTab(browser)
    await page.goto(launched.launch_url)
    const player = await playerFrame(page)
    const sco = scoFrame(player)
    await coursePage(page, PAGES_2004[0] as string)
    // One SCO: no contents, no previous/continue from the player.
    assert.equal(await player.locator('.cp-controls').isVisible(), false)

    await nextUntil(page, sco, PAGES_2004, 0, PAGES_2004.length - 1)
    const quiz = await coursePage(page, 'shared/assessmenttemplate.html')
    const { score, questions } = await answerAssessment(quiz, { wrong: 1 })
    assert.equal(questions, 15)
    assert.equal(score, 93)
    await sco.locator('#butExit').click()
    await player.getByRole('heading', { name: 'Course complete' }).waitFor()
    await assertSaved(player)
    await closeTab(page)

    // What the course reported through API_1484_11.
    assert.equal(scorm.lastSet('cmi.completion_status'), 'completed')
    assert.equal(scorm.lastSet('cmi.success_status'), 'passed')
    assert.equal(scorm.lastSet('cmi.score.raw'), '93')
    assert.equal(scorm.lastSet('cmi.score.scaled'), '0.93')
    assert.equal(scorm.lastSet('adl.nav.request'), 'exitAll')
    const sessionTime = scorm.lastSet('cmi.session_time') as string
    assert.match(sessionTime, /^PT/)
    assert.equal(scorm.called('Terminate').length, 1)
    assert.deepEqual(scorm.failures(), [])
    assert.deepEqual(dialogs.alerts(), [])

    const s = await settled(launched.session_id, (x) => x.completion_status === 'completed')
    assert.deepEqual(s.session, {
      session_id: launched.session_id,
      completion_status: 'completed',
      success_status: 'passed',
      score: { scaled: 0.93, raw: 93 },
    })
    assert.deepEqual(s.score, { scaled: 0.93, raw: 93, min: 0, max: 100 })
    assert.equal(s.progress_percent, 100)
    sameSeconds(isoSeconds(s.session_time as string), isoSeconds(sessionTime), 'session_time')
    assert.equal(s.time_spent_seconds, Math.round(isoSeconds(sessionTime)))
    sameSeconds(isoSeconds(s.total_time), isoSeconds(sessionTime), 'total_time')
    assert.equal(s.suspended, false)
    assert.equal(s.cmi_data['cmi.location'], String(PAGES_2004.length - 1))
    assert.equal(s.cmi_data['cmi.exit'], '')
    assert.equal(s.cmi_data['cmi.score.raw'], '93')
  })

  test('SCORM 1.2 (singlescobasic): 15 pages, the knowledge check, Exit — completed, passed, with its score and time', {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const launched = await api.launch(pkg(GOLF_12_BASIC), 'bo@example.com')
    const { page, scorm, dialogs } = await learnerTab(browser)
    await page.goto(launched.launch_url)
    const player = await playerFrame(page)
    const sco = scoFrame(player)
    await coursePage(page, PAGES_12[0] as string)
    await nextUntil(page, sco, PAGES_12, 0, PAGES_12.length - 1)
    const quiz = await coursePage(page, 'shared/assessmenttemplate.html')
    const { score } = await answerAssessment(quiz)
    assert.equal(score, 100)
    await sco.locator('#butExit').click()
    // LMSFinish with "passed" on the only SCO: nothing comes next, and the course is done.
    await player.getByRole('heading', { name: 'Course complete' }).waitFor()
    await assertSaved(player)
    await closeTab(page)

    assert.equal(scorm.lastSet('cmi.core.lesson_status'), 'passed')
    assert.equal(scorm.lastSet('cmi.core.score.raw'), '100')
    const sessionTime = scorm.lastSet('cmi.core.session_time') as string
    assert.equal(scorm.called('LMSFinish').length, 1)
    assert.deepEqual(scorm.failures(), [])
    assert.deepEqual(dialogs.alerts(), [])

    const s = await settled(launched.session_id, (x) => x.completion_status === 'completed')
    assert.deepEqual(s.session, {
      session_id: launched.session_id,
      completion_status: 'completed',
      success_status: 'passed',
      score: { scaled: 1, raw: 100 },
    })
    assert.deepEqual(s.score, { scaled: 1, raw: 100, min: 0, max: 100 })
    sameSeconds(isoSeconds(s.session_time as string), timespanSeconds(sessionTime), 'session_time')
    assert.equal(s.time_spent_seconds, Math.round(timespanSeconds(sessionTime)))
    assert.equal(s.cmi_data['cmi.core.lesson_location'], String(PAGES_12.length - 1))
    assert.equal(s.cmi_data['cmi.core.lesson_status'], 'passed')
  })

  test('SCORM 1.2 (RuntimeMinimumCalls): 18 SCOs by Continue and the contents, four quizzes — every SCO completed', {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const launched = await api.launch(pkg(GOLF_12_MINIMUM), 'cleo@example.com')
    const { page, scorm, dialogs } = await learnerTab(browser)
    await page.goto(launched.launch_url)
    const player = await playerFrame(page)
    const toc = player.locator('#cp-toc')
    // An entry reads as its title and, once opened, its mark ("Par?, visited").
    const tocItem = (title: string) =>
      toc.locator('button.cp-toc-link').filter({
        has: player.locator('.cp-toc-text').getByText(title, { exact: true }),
      })
    for (let i = 0; i < MINIMUM_ITEMS.length; i++) {
      const title = MINIMUM_ITEMS[i] as string
      // The SCO has loaded and found the API (it calls LMSInitialize from its onload).
      await until(`SCO ${i + 1} (${title})`, () => scorm.called('LMSInitialize').length === i + 1)
      assert.equal(await player.locator('.cp-position').textContent(), `${i + 1} of 18`)
      assert.equal(await tocItem(title).getAttribute('aria-current'), 'step')
      const topic = QUIZZES[title]
      if (topic) {
        const quiz = await coursePage(page, 'shared/assessmenttemplate.html')
        assert.ok(quiz.url().endsWith(`?questions=${topic}`), quiz.url())
        await answerAssessment(quiz)
      }
      if (i === MINIMUM_ITEMS.length - 1) break
      if (title === 'Etiquette Quiz') {
        // The learner opens the contents (a drawer on a phone) and picks the next part there.
        await player.getByRole('button', { name: 'Contents' }).click()
        await tocItem(MINIMUM_ITEMS[i + 1] as string).click()
      } else {
        await player.locator('.cp-controls').getByRole('button', { name: 'Continue' }).click()
      }
    }
    assert.equal(
      await player.locator('.cp-controls').getByRole('button', { name: 'Continue' }).isDisabled(),
      true,
    )
    // Every part left behind is marked done in the contents (LMSFinish without a status).
    for (const title of MINIMUM_ITEMS.slice(0, -1)) {
      assert.match((await tocItem(title).textContent()) ?? '', /, completed$/, title)
    }
    await assertSaved(player)
    await closeTab(page)

    // The course only calls LMSInitialize and LMSFinish: the LMS decides each SCO is completed.
    await until('the last LMSFinish', () => scorm.called('LMSFinish').length === 18)
    assert.deepEqual(scorm.setValues('cmi.core.lesson_status'), [])
    assert.deepEqual(scorm.failures(), [])
    assert.deepEqual(dialogs.alerts(), [])
    const s = await settled(launched.session_id, (x) => x.completion_status === 'completed')
    assert.equal(s.success_status, 'unknown')
    assert.deepEqual(s.score, { scaled: null, raw: null, min: null, max: null })
    assert.equal(s.progress_percent, 100)
    assert.equal(s.scos.length, 18)
    assert.ok(s.scos.every((sco) => sco.completion_status === 'completed'))
    const cmi = s.cmi_data as Record<string, Record<string, string>>
    assert.equal(Object.keys(cmi).length, 18)
    for (const values of Object.values(cmi))
      assert.equal(values['cmi.core.lesson_status'], 'completed')
    // No session time was ever reported.
    assert.equal(s.session_time, null)
    assert.equal(s.time_spent_seconds, 0)
  })

  test('SCORM 1.2 (singlesco_scorm12, a packaging sample that never calls the API): opened and closed — completed, no score, no time', {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const launched = await api.launch(pkg(GOLF_12_PACKAGING), 'dev@example.com')
    const { page, scorm } = await learnerTab(browser)
    await page.goto(launched.launch_url)
    const player = await playerFrame(page)
    await scoFrame(player).getByRole('heading', { name: 'Not implemented yet' }).waitFor()
    await closeTab(page)
    assert.deepEqual(scorm.calls, [])
    const s = await settled(launched.session_id, (x) => x.completion_status !== 'incomplete')
    assert.equal(s.completion_status, 'completed')
    assert.equal(s.success_status, 'unknown')
    assert.deepEqual(s.score, { scaled: null, raw: null, min: null, max: null })
    assert.equal(s.session_time, null)
  })

  test('SCORM 2004 suspended halfway: tab closed, relaunched, resumes where it was with its suspend data; suspended again by Exit; finished on the third sitting', {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const b = browser
    const learner = 'eve@example.com'

    // Sitting 1: six pages, then the learner closes the tab (no Exit).
    const first = await api.launch(pkg(GOLF_2004), learner)
    let tab = await learnerTab(b)
    await tab.page.goto(first.launch_url)
    let player = await playerFrame(tab.page)
    let sco = scoFrame(player)
    await coursePage(tab.page, PAGES_2004[0] as string)
    await nextUntil(tab.page, sco, PAGES_2004, 0, 5)
    // This course bookmarks with cmi.location only; suspend data is written through the same
    // API object the SCO uses, as a course that keeps state would.
    assert.equal(await api2004(player, 'SetValue', 'cmi.suspend_data', SUSPEND_DATA), 'true')
    await closeTab(tab.page)
    // The course's beforeunload handler set cmi.exit=suspend and terminated; the player sent it
    // by beacon while the tab went away.
    const one = await settled(first.session_id, (s) => s.suspended && s.session_time !== null)
    assert.equal(one.completion_status, 'incomplete')
    assert.equal(one.cmi_data['cmi.exit'], 'suspend')
    assert.equal(one.cmi_data['cmi.location'], '5')
    assert.equal(one.cmi_data['cmi.suspend_data'], SUSPEND_DATA)
    const time1 = isoSeconds(one.session_time as string)
    const sentTime1 = tab.scorm.lastSet('cmi.session_time')
    assert.ok(sentTime1, 'the SCO reported its session time from its beforeunload handler')
    sameSeconds(time1, isoSeconds(sentTime1 as string), 'session_time')

    // Sitting 2: same learner, same session; the course offers to resume and the learner agrees.
    const second = await api.launch(pkg(GOLF_2004), learner)
    assert.equal(second.session_id, first.session_id)
    tab = await learnerTab(b)
    await tab.page.goto(second.launch_url)
    player = await playerFrame(tab.page)
    sco = scoFrame(player)
    await coursePage(tab.page, PAGES_2004[5] as string)
    assert.ok(tab.dialogs.seen.includes(`confirm: ${RESUME_QUESTION}`), String(tab.dialogs.seen))
    const bookmark = tab.scorm.calls.find(
      (c) => c.fn === 'GetValue' && c.args[0] === 'cmi.location',
    )
    assert.equal(bookmark?.result, '5', 'the SCO read its bookmark back')
    assert.deepEqual(await resumeState(player), {
      entry: 'resume',
      location: '5',
      suspendData: SUSPEND_DATA,
      completion: 'incomplete',
    })
    sameSeconds(isoSeconds(await api2004(player, 'GetValue', 'cmi.total_time')), time1, 'total')
    const live = await api.session(first.session_id)
    assert.equal(live.cmi_data['cmi.entry'], 'resume')
    assert.equal(live.cmi_data['cmi.location'], '5')
    assert.equal(live.cmi_data['cmi.suspend_data'], SUSPEND_DATA)
    await nextUntil(tab.page, sco, PAGES_2004, 5, 8)
    // The course's Exit asks whether to save for later: yes → cmi.exit=suspend + suspendAll.
    await sco.locator('#butExit').click()
    await player.getByRole('heading', { name: 'Your progress is saved.' }).waitFor()
    assert.ok(tab.dialogs.seen.includes(`confirm: ${SAVE_QUESTION}`), String(tab.dialogs.seen))
    assert.equal(tab.scorm.lastSet('adl.nav.request'), 'suspendAll')
    const time2 = isoSeconds(tab.scorm.lastSet('cmi.session_time') as string)
    await assertSaved(player)
    await closeTab(tab.page)
    const two = await settled(first.session_id, (s) => s.suspended && s.launch_count === 2)
    assert.equal(two.cmi_data['cmi.location'], '8')
    assert.equal(two.completion_status, 'incomplete')

    // Sitting 3: resumes at page 9, to the end.
    const third = await api.launch(pkg(GOLF_2004), learner)
    assert.equal(third.session_id, first.session_id)
    tab = await learnerTab(b)
    await tab.page.goto(third.launch_url)
    player = await playerFrame(tab.page)
    sco = scoFrame(player)
    await coursePage(tab.page, PAGES_2004[8] as string)
    assert.equal((await resumeState(player)).entry, 'resume')
    sameSeconds(
      isoSeconds(await api2004(player, 'GetValue', 'cmi.total_time')),
      time1 + time2,
      'total time after two sittings',
    )
    await nextUntil(tab.page, sco, PAGES_2004, 8, PAGES_2004.length - 1)
    const quiz = await coursePage(tab.page, 'shared/assessmenttemplate.html')
    assert.equal((await answerAssessment(quiz)).score, 100)
    await sco.locator('#butExit').click()
    await player.getByRole('heading', { name: 'Course complete' }).waitFor()
    const time3 = isoSeconds(tab.scorm.lastSet('cmi.session_time') as string)
    await assertSaved(player)
    await closeTab(tab.page)
    assert.deepEqual(tab.scorm.failures(), [])
    assert.deepEqual(tab.dialogs.alerts(), [])

    const done = await settled(first.session_id, (s) => s.completion_status === 'completed')
    assert.equal(done.success_status, 'passed')
    assert.deepEqual(done.score, { scaled: 1, raw: 100, min: 0, max: 100 })
    assert.equal(done.suspended, false)
    assert.equal(done.launch_count, 3)
    assert.equal(done.time_spent_seconds, Math.round(time1 + time2 + time3))
    assert.ok(Math.abs(isoSeconds(done.total_time) - (time1 + time2 + time3)) < 0.03)
    assert.equal(done.cmi_data['cmi.exit'], '')
    // One event per transition: left suspended twice, then completed (and passed) once.
    const events = await listAuditEvents(
      server.t.ctx.db.kysely,
      { tenantId: tenant.tenantId, mode: 'test' },
      first.session_id,
    )
    assert.deepEqual(
      events.map((e) => e.type),
      ['session.suspended', 'session.suspended', 'session.completed'],
    )
  })

  test("inside another site's iframe (localhost embedding 127.0.0.1), third-party cookies blocked: SCORM 2004 played to the end — completed", {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const blocked = await launchBrowser({
      blockThirdPartyCookies: true,
      viewport: { width: 1280, height: 900 },
    })
    if (isSkip(blocked)) return t.skip(blocked.skip)
    const host = await serveHostPage()
    try {
      const launched = await api.launch(pkg(GOLF_2004), 'fay@example.com')
      const { page, scorm, dialogs } = await learnerTab(blocked)
      await page.goto(host.pageUrl(launched.launch_url))
      const player = await playerFrame(page)
      assert.equal(player.parentFrame(), page.mainFrame(), "the player is the host page's iframe")
      assert.equal(new URL(page.url()).hostname, 'localhost')
      assert.equal(new URL(player.url()).origin, server.contentUrl)
      // In this frame nothing can be kept in cookies, and with third-party cookies blocked the
      // browser denies it localStorage too: the player needs neither.
      const probe = await player.evaluate(() => {
        // biome-ignore lint/suspicious/noDocumentCookie: the probe is whether a cookie sticks at all
        document.cookie = 'cp_probe=1; path=/'
        let storage = 'available'
        try {
          window.localStorage.getItem('x')
        } catch {
          storage = 'denied'
        }
        return { cookie: document.cookie, storage }
      })
      assert.deepEqual(probe, { cookie: '', storage: 'denied' })

      const sco = scoFrame(player)
      await coursePage(page, PAGES_2004[0] as string)
      await nextUntil(page, sco, PAGES_2004, 0, PAGES_2004.length - 1)
      const quiz = await coursePage(page, 'shared/assessmenttemplate.html')
      const { score } = await answerAssessment(quiz, { wrong: 3 })
      assert.equal(score, 80)
      await sco.locator('#butExit').click()
      await player.getByRole('heading', { name: 'Course complete' }).waitFor()
      const sessionTime = scorm.lastSet('cmi.session_time') as string
      await assertSaved(player)
      await closeTab(page)
      assert.deepEqual(scorm.failures(), [])
      assert.deepEqual(dialogs.alerts(), [])

      const s = await settled(launched.session_id, (x) => x.completion_status === 'completed')
      assert.equal(s.success_status, 'passed')
      assert.deepEqual(s.score, { scaled: 0.8, raw: 80, min: 0, max: 100 })
      sameSeconds(isoSeconds(s.session_time as string), isoSeconds(sessionTime), 'session_time')

      // Closing the host's tab mid-course: with no storage to keep unsent commits for the next
      // visit, the beacon sent on pagehide is all there is, and it is enough.
      const halfway = await api.launch(pkg(GOLF_2004), 'gil@example.com')
      const tab = await learnerTab(blocked)
      await tab.page.goto(host.pageUrl(halfway.launch_url))
      const sco2 = scoFrame(await playerFrame(tab.page))
      await coursePage(tab.page, PAGES_2004[0] as string)
      await nextUntil(tab.page, sco2, PAGES_2004, 0, 3)
      await closeTab(tab.page)
      const left = await settled(halfway.session_id, (x) => x.suspended)
      assert.equal(left.completion_status, 'incomplete')
      assert.equal(left.cmi_data['cmi.location'], '3')
      assert.equal(left.cmi_data['cmi.exit'], 'suspend')
      assert.match(String(left.session_time), /^PT/)
    } finally {
      await host.close()
      await blocked.close()
    }
  })
})
