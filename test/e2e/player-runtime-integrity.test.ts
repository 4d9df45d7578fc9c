/**
 * The player against the real server (API and content apps on 127.0.0.1, SQLite and PostgreSQL)
 * in Chromium, with small SCORM packages written here: how a SCO is unloaded when the learner
 * moves on or exits, SetValue refusals reported with the next commit, SCORM 1.2 prerequisites
 * and `isvisible`, contents marks, the single-SCO layout, flow-off / choice-off courses, and an
 * axe-core check of the page. Screenshots go to $PLAYER_SCREENSHOTS (default a temp dir) for a
 * human to look at.
 */
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Frame, Page } from 'playwright-core'
import type { TestTenant } from '../helpers/app.ts'
import { describeEachDatabase } from '../helpers/database.ts'
import { isSkip, launchBrowser, type TestBrowser } from './helpers/browser.ts'
import { playerFrame, scoFrame } from './helpers/golf-learner.ts'
import {
  type ApiClient,
  apiClient,
  type LiveServer,
  type SessionDetail,
  startLiveServer,
  until,
} from './helpers/live-server.ts'
import { buildTestPackage, type TestPackage } from './helpers/scorm-package.ts'

const TEST_TIMEOUT = 60_000
const HOOK_TIMEOUT = 60_000
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }
const SHOTS = process.env.PLAYER_SCREENSHOTS ?? join(tmpdir(), 'courseport-player-screenshots')

/** Part one finishes only in onbeforeunload, as authoring-tool templates do; it also tries a bad value. */
/*
 * SCORM 2004's default control mode is flow="false" choice="true" (IMS SS): a course whose
 * learner moves on with Continue says flow="true", as these do.
 */
const FINISH_IN_BEFOREUNLOAD: TestPackage = {
  version: '2004',
  title: 'Finishing on unload',
  controlMode: { flow: true },
  items: [
    {
      id: 'one',
      title: 'Part one',
      script: `api.Initialize('')
api.SetValue('cmi.completion_status', 'bogus')
api.SetValue('cmi.location', 'p1')
api.Commit('')
window.onbeforeunload = function () {
  api.SetValue('cmi.completion_status', 'completed')
  api.SetValue('cmi.success_status', 'passed')
  api.Terminate('')
}`,
    },
    { id: 'two', title: 'Part two', script: `api.Initialize('')` },
  ],
}

/** Part one completes at once; Part two finishes in onbeforeunload (so only Exit completes it). */
const TWO_PARTS: TestPackage = {
  version: '2004',
  title: 'Two parts',
  controlMode: { flow: true },
  items: [
    {
      id: 'p1',
      title: 'Part one',
      script: `api.Initialize('')
api.SetValue('cmi.completion_status', 'completed')
api.SetValue('cmi.success_status', 'passed')
api.Commit('')`,
    },
    {
      id: 'p2',
      title: 'Part two',
      script: `api.Initialize('')
window.onbeforeunload = function () {
  api.SetValue('cmi.completion_status', 'completed')
  api.Terminate('')
}`,
    },
  ],
}

const INIT_12 = `api.LMSInitialize('')`

/** SCORM 1.2 with prerequisites, a hidden SCO and a hidden wrapper around a visible one. */
const PREREQUISITES_12: TestPackage = {
  version: '1.2',
  title: 'Prerequisites',
  items: [
    { id: 'a', title: 'Start here', script: INIT_12 },
    { id: 'b', title: 'Needs the start', prerequisites: 'a', script: INIT_12 },
    {
      id: 'w',
      title: 'Hidden wrapper',
      visible: false,
      children: [{ id: 'c', title: 'Inside the hidden wrapper', script: INIT_12 }],
    },
    { id: 'd', title: 'Hidden part', visible: false, script: INIT_12 },
    { id: 'e', title: 'After passing the hidden part', prerequisites: 'd=passed', script: INIT_12 },
  ],
}

const SINGLE: TestPackage = {
  version: '2004',
  title: 'One part only',
  items: [{ id: 'only', title: 'The only part', script: `api.Initialize('')` }],
}

const twoSimple = (title: string, controlMode: TestPackage['controlMode']): TestPackage => ({
  version: '2004',
  title,
  controlMode,
  items: [
    { id: 'x1', title: 'Part one', script: `api.Initialize('')` },
    { id: 'x2', title: 'Part two', script: `api.Initialize('')` },
  ],
})

let browser: TestBrowser | undefined
let skipReason: string | undefined

before(
  async () => {
    const launched = await launchBrowser({ viewport: DESKTOP })
    if (isSkip(launched)) skipReason = launched.skip
    else browser = launched
    mkdirSync(SHOTS, { recursive: true })
  },
  { timeout: HOOK_TIMEOUT },
)

after(async () => {
  await browser?.close()
})

interface Learner {
  page: Page
  player: Frame
  /** Bodies of the player's commit requests, in the order they left. */
  commits: Array<Record<string, unknown>>
}

async function open(b: TestBrowser, launchUrl: string): Promise<Learner> {
  const page = await b.context.newPage()
  page.setDefaultTimeout(10_000)
  const commits: Array<Record<string, unknown>> = []
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/commits')) {
      commits.push(JSON.parse(r.postData() ?? '{}') as Record<string, unknown>)
    }
  })
  await page.goto(launchUrl)
  return { page, player: await playerFrame(page), commits }
}

/** Waits until the SCO titled `title` has run its script. */
async function scoReady(player: Frame, title: string): Promise<void> {
  const sco = scoFrame(player)
  await sco.getByRole('heading', { name: title }).waitFor()
  await sco.locator('#out', { hasText: 'ready' }).waitFor()
}

function scoEval(player: Frame, script: string): Promise<unknown> {
  return player.locator('iframe.cp-frame').evaluate((frame, code) => {
    const win = (frame as HTMLIFrameElement).contentWindow as unknown as {
      eval(s: string): unknown
    }
    return win.eval(code)
  }, script)
}

const AXE_SOURCE = readFileSync(join(process.cwd(), 'node_modules/axe-core/axe.min.js'), 'utf8')

/**
 * axe-core's findings on the player page. The page's CSP (script-src 'self') refuses the inline
 * `<script>` that addScriptTag would insert, and the test keeps that policy on: the library is
 * evaluated through the DevTools protocol instead, which the policy does not govern.
 */
async function axeViolations(player: Frame): Promise<Array<{ id: string; impact: string }>> {
  await player.evaluate(AXE_SOURCE)
  return player.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(o: unknown): Promise<{ violations: Array<{ id: string; impact: string }> }> }
      }
    ).axe
    // The SCO is the package's own page, not the player's: axe looks at the player only.
    const result = await axe.run({ exclude: [['iframe.cp-frame']] })
    return result.violations.map((v) => ({ id: v.id, impact: v.impact }))
  })
}

describeEachDatabase('the player against the real server', (database) => {
  let server: LiveServer
  let tenant: TestTenant
  let api: ApiClient
  const packages = new Map<TestPackage, string>()

  before(
    async () => {
      if (!browser) return
      server = await startLiveServer(database())
      tenant = await server.t.createTenant('growth')
      api = apiClient(server, tenant)
      const all = [
        FINISH_IN_BEFOREUNLOAD,
        TWO_PARTS,
        PREREQUISITES_12,
        SINGLE,
        twoSimple('Flow off', { flow: false }),
        // flow="false" with choice="false" would leave nothing to deliver (SB.2.5, NB.2.1-10).
        twoSimple('Choice off', { flow: true, choice: false }),
      ]
      for (const p of all) {
        packages.set(p, await api.uploadZip(buildTestPackage(p), `${p.title}.zip`))
      }
    },
    { timeout: HOOK_TIMEOUT },
  )

  after(async () => {
    await server?.close()
  })

  const launch = async (p: TestPackage | string, learner: string) => {
    const id =
      typeof p === 'string' ? [...packages].find(([k]) => k.title === p)?.[1] : packages.get(p)
    return api.launch(id as string, learner)
  }
  const settled = (sessionId: string, done: (s: SessionDetail) => boolean) =>
    until(`session ${sessionId} to settle`, async () => {
      const s = await api.session(sessionId)
      return done(s) ? s : undefined
    })
  const sco = (s: SessionDetail, id: string) => s.scos.find((x) => x.item_id === id)

  test('moving on unloads the SCO like a page: its onbeforeunload completes it; a refused SetValue goes with the next commit', {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const launched = await launch(FINISH_IN_BEFOREUNLOAD, 'una@example.com')
    const { page, player, commits } = await open(browser, launched.launch_url)
    await scoReady(player, 'Part one')
    await player.locator('.cp-controls').getByRole('button', { name: 'Continue' }).click()
    await scoReady(player, 'Part two')

    const s = await settled(
      launched.session_id,
      (x) => sco(x, 'one')?.completion_status !== 'incomplete',
    )
    assert.deepEqual(
      { completion: sco(s, 'one')?.completion_status, success: sco(s, 'one')?.success_status },
      { completion: 'completed', success: 'passed' },
    )
    // Part one's first commit reported the value the data model refused (406 type mismatch).
    const first = commits.find((c) => (c.delta as { seq: number }).seq === 1)
    assert.deepEqual(first?.refused, [
      { element: 'cmi.completion_status', value: 'bogus', error_code: 406 },
    ])
    assert.equal(commits.filter((c) => c.refused !== undefined).length, 1, 'reported once')
    await page.close()
  })

  test('SCORM 1.2: prerequisites lock contents entries and Continue until met; isvisible="false" items are not listed but flow delivers them', {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const launched = await launch(PREREQUISITES_12, 'pia@example.com')
    const { page, player } = await open(browser, launched.launch_url)
    const toc = player.getByRole('navigation', { name: 'Contents' })
    const entry = (name: string | RegExp) => toc.getByRole('button', { name })
    await scoReady(player, 'Start here')
    // Hidden SCO and hidden wrapper title are not listed; the wrapper's visible child is.
    const listed = await toc.locator('li').allTextContents()
    assert.deepEqual(
      listed.map((x) => x.replace(/^[✓✕◐]/, '').replace(/,.*$/, '')),
      [
        'Start here',
        'Needs the start',
        'Inside the hidden wrapper',
        'After passing the hidden part',
      ],
    )
    assert.equal(await entry(/^Needs the start/).isDisabled(), true)
    assert.match(
      (await entry(/^Needs the start/).textContent()) ?? '',
      /locked until earlier parts are done/,
    )
    await page.screenshot({ path: join(SHOTS, 'prerequisites-desktop.png') })
    // "Needs the start" is locked: Continue passes over it to the wrapper's child.
    const continueButton = player.locator('.cp-controls').getByRole('button', { name: 'Continue' })
    assert.equal(await continueButton.isEnabled(), true)

    await scoEval(player, `api.LMSSetValue('cmi.core.lesson_status', 'passed'); api.LMSCommit('')`)
    await until('the entry to unlock', async () => await entry(/^Needs the start/).isEnabled())
    assert.equal(await toc.locator('li[data-mark="passed"]').textContent(), '✓Start here, passed')

    await continueButton.click()
    await scoReady(player, 'Needs the start')
    await continueButton.click()
    await scoReady(player, 'Inside the hidden wrapper')
    await continueButton.click()
    // Hidden from the contents, still delivered by flow (CAM: isvisible is about display).
    await scoReady(player, 'Hidden part')
    assert.equal(await player.locator('.cp-position').textContent(), '4 of 5')
    // The last part needs this one passed: Continue stays off until it is.
    assert.equal(await continueButton.isDisabled(), true)
    assert.equal(await entry(/^After passing/).isDisabled(), true)
    await scoEval(player, `api.LMSSetValue('cmi.core.lesson_status', 'passed'); api.LMSCommit('')`)
    await until('Continue to allow the last part', () => continueButton.isEnabled())
    await continueButton.click()
    await scoReady(player, 'After passing the hidden part')
    await page.close()
  })

  test('contents marks and Exit: the SCO is unloaded like a closing window, then "Course complete"; no serious axe violations; screenshots', {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const launched = await launch(TWO_PARTS, 'eli@example.com')
    const { page, player } = await open(browser, launched.launch_url)
    const toc = player.getByRole('navigation', { name: 'Contents' })
    await scoReady(player, 'Part one')
    await until('the passed mark', async () =>
      ((await toc.getByRole('button', { name: /^Part one/ }).textContent()) ?? '').endsWith(
        ', passed',
      ),
    )
    await player.locator('.cp-controls').getByRole('button', { name: 'Continue' }).click()
    await scoReady(player, 'Part two')
    const partTwo = toc.getByRole('button', { name: /^Part two/ })
    assert.equal(await partTwo.getAttribute('aria-current'), 'step')
    assert.equal(
      await toc.getByRole('button', { name: /^Part one/ }).getAttribute('aria-current'),
      null,
    )
    assert.match((await partTwo.textContent()) ?? '', /, visited$/)

    await page.screenshot({ path: join(SHOTS, 'multi-desktop.png') })
    assert.deepEqual(
      (await axeViolations(player)).filter(
        (v) => v.impact === 'serious' || v.impact === 'critical',
      ),
      [],
    )
    // Narrowed to a phone: the sidebar becomes a closed drawer.
    await page.setViewportSize(PHONE)
    const menu = player.getByRole('button', { name: 'Contents' })
    await until(
      'the drawer to close',
      async () => (await menu.getAttribute('aria-expanded')) === 'false',
    )
    await toc.waitFor({ state: 'hidden' })
    await page.screenshot({ path: join(SHOTS, 'multi-phone.png') })
    await menu.click()
    await toc.waitFor({ state: 'visible' })
    await until('the drawer to slide in', async () => (await toc.boundingBox())?.x === 0)
    await page.screenshot({ path: join(SHOTS, 'multi-phone-contents.png') })
    assert.deepEqual(
      (await axeViolations(player)).filter(
        (v) => v.impact === 'serious' || v.impact === 'critical',
      ),
      [],
    )
    await page.keyboard.press('Escape')

    // Under the server's sequencer Exit is a menu: Exit course is Exit All.
    await player.getByRole('button', { name: 'Exit', exact: true }).click()
    await player.getByRole('button', { name: 'Exit course' }).click()
    await player.getByRole('heading', { name: 'Course complete' }).waitFor()
    assert.equal(await player.locator('iframe.cp-frame').count(), 0)
    await page.screenshot({ path: join(SHOTS, 'exit-phone.png') })
    await page.setViewportSize(DESKTOP)
    await page.screenshot({ path: join(SHOTS, 'exit-desktop.png') })
    const s = await api.session(launched.session_id)
    assert.equal(sco(s, 'p2')?.completion_status, 'completed', "Part two's onbeforeunload ran")
    assert.equal(s.completion_status, 'completed')
    await page.close()
  })

  test('a single-SCO course has no bars: the SCO fills the viewport, on a desktop and on a phone', {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const launched = await launch(SINGLE, 'sol@example.com')
    const { page, player } = await open(browser, launched.launch_url)
    await scoReady(player, 'The only part')
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size)
      const box = await player.locator('iframe.cp-frame').boundingBox()
      assert.deepEqual(
        [box?.x, box?.y, box?.width, box?.height],
        [0, 0, size.width, size.height],
        `${size.width}×${size.height}`,
      )
      assert.equal(await player.locator('.cp-bar').isVisible(), false)
      await page.screenshot({ path: join(SHOTS, `single-${size.width}.png`) })
    }
    await page.close()
  })

  test('flow off (the 2004 default): the learner starts from the contents, no Previous/Continue; choice off: Continue works, no contents to pick from', {
    timeout: TEST_TIMEOUT,
  }, async (t) => {
    if (!browser) return t.skip(skipReason)
    const flowOff = await launch('Flow off', 'flo@example.com')
    let learner = await open(browser, flowOff.launch_url)
    let { player } = learner
    const toc = () => player.getByRole('navigation', { name: 'Contents' })
    // The root does not flow: nothing is delivered until the learner picks a part.
    await player.getByRole('heading', { name: 'Choose a part to open.' }).waitFor()
    assert.equal(await player.locator('iframe.cp-frame').count(), 0)
    await toc()
      .getByRole('button', { name: /^Part one/ })
      .click()
    await scoReady(player, 'Part one')
    const controls = player.locator('.cp-controls')
    assert.equal(await controls.getByRole('button', { name: 'Continue' }).isDisabled(), true)
    assert.equal(await controls.getByRole('button', { name: 'Previous' }).isDisabled(), true)
    assert.equal(await scoEval(player, `api.GetValue('adl.nav.request_valid.continue')`), 'false')
    await toc()
      .getByRole('button', { name: /^Part two/ })
      .click()
    await scoReady(player, 'Part two')
    await learner.page.close()

    const choiceOff = await launch('Choice off', 'cho@example.com')
    learner = await open(browser, choiceOff.launch_url)
    player = learner.player
    await scoReady(player, 'Part one')
    // No entry can be chosen, so the sequencer offers no table of contents (tocEnabled false).
    assert.equal(await toc().count(), 0, 'no contents to pick from')
    assert.equal(
      await scoEval(player, `api.GetValue('adl.nav.request_valid.choice.{target=x2}')`),
      'false',
    )
    await player.locator('.cp-controls').getByRole('button', { name: 'Continue' }).click()
    await scoReady(player, 'Part two')
    await learner.page.close()
  })
})
