/**
 * Quick-published courses in the hosted player, in headless Chromium: the preview launch_url
 * plays, reaching the last slide completes the session (SCORM 2004 and 1.2), and a learner who
 * leaves resumes at the slide they were on.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { isSkip, launchBrowser, type TestBrowser } from '../../e2e/helpers/browser.ts'
import { bearer, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { createListeningApp } from '../conversions/conversion.helper.ts'
import {
  courseFrame,
  playToLastSlide,
  waitForCompleted,
} from '../conversions/course-player.helper.ts'

const slides = [
  { title: 'Welcome', content: 'Hello **team**' },
  { title: 'Rules', content: '- one\n- two' },
  { title: 'Practice', content: '*Try it*' },
  { title: 'Done', content: 'Thanks' },
]

describeEachDatabase('quick-published courses in Chromium', (database) => {
  let t: Awaited<ReturnType<typeof createListeningApp>>
  let tenant: TestTenant
  let browser: TestBrowser | undefined
  before(async () => {
    t = await createListeningApp(database())
    tenant = await t.createTenant('growth')
    const launched = await launchBrowser({ viewport: { width: 1280, height: 800 } })
    browser = isSkip(launched) ? undefined : launched
  })
  after(async () => {
    await browser?.close()
    await t.close()
  })

  for (const version of ['2004', '1.2'] as const) {
    test(`SCORM ${version}: the preview launch plays to the last slide and completes`, async (ctx) => {
      if (!browser) return ctx.skip('no Chromium')
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/quick-publish',
        headers: bearer(tenant.testKey),
        payload: { title: `Course ${version}`, slides, scorm_version: version },
      })
      assert.equal(res.statusCode, 201, res.body)
      const page = await browser.page()
      const frame = await playToLastSlide(page, res.json().launch_url, slides.length)
      assert.equal(await frame.getAttribute('.nav-button.next', 'aria-disabled'), 'true')
      const sessionId = new URL(res.json().launch_url).pathname.split('/').pop() as string
      const session = await waitForCompleted(t, tenant.testKey, sessionId)
      assert.equal(session.completion_status, 'completed')
      await page.goto('about:blank')
    })
  }

  test('a learner who leaves comes back to the slide they were on', async (ctx) => {
    if (!browser) return ctx.skip('no Chromium')
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/quick-publish',
      headers: bearer(tenant.testKey),
      payload: { title: 'Resume', slides },
    })
    const packageId = res.json().package_id
    const launch = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/packages/${packageId}/launch`,
        headers: bearer(tenant.testKey),
        payload: { user_id: 'ada@example.com' },
      })
    const page = await browser.page()
    const first = await launch()
    await playToLastSlide(page, first.json().launch_url, 3) // stops on slide 3 of 4
    await page.goto('about:blank') // leaves: the player suspends and commits
    await new Promise((r) => setTimeout(r, 500))
    const second = await launch()
    assert.equal(second.json().session_id, first.json().session_id, 'the attempt is resumed')
    await page.goto(second.json().launch_url)
    const frame = await courseFrame(page)
    await frame.waitForFunction(
      () => document.querySelector('.counter')?.textContent?.startsWith('Slide 3 of 4'),
      undefined,
      { timeout: 10_000 },
    )
    await frame.click('.nav-button.next')
    await waitForCompleted(t, tenant.testKey, second.json().session_id)
    await page.goto('about:blank')
  })
})
