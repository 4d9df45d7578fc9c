/**
 * The Course creation page in headless Chromium against the real server (and a real job worker):
 * quick-publish a two-slide course and find it on the Packages page; upload a .pptx and watch
 * its conversion job reach "Done" (LibreOffice needed: skipped with the reason printed when it
 * is absent, an error with CI=true). axe-core at desktop and phone width.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Worker } from '../../src/infra/queue/index.ts'
import { startWorker } from '../../src/main/worker.ts'
import { describeEachDatabase } from '../helpers/database.ts'
import { PPTX, silentLogger } from '../integration/conversions/conversion.helper.ts'
import { officeSkipReason } from '../unit/office/office.helper.ts'
import { isSkip, launchBrowser, type TestBrowser } from './helpers/browser.ts'
import { checkPage, navLink, signInBrowser } from './helpers/dashboard-session.ts'
import { type LiveServer, startLiveServer } from './helpers/live-server.ts'

const officeMissing = await officeSkipReason()

describeEachDatabase('dashboard course creation page in Chromium', (database) => {
  let server: LiveServer
  let worker: Worker | undefined
  let browser: TestBrowser | undefined
  let skip: string | undefined
  let tenantId: string

  before(async () => {
    server = await startLiveServer(database())
    tenantId = (await server.t.createTenant('growth')).tenantId
    worker = await startWorker(server.t.ctx, silentLogger)
    const launched = await launchBrowser({ viewport: { width: 1280, height: 900 } })
    if (isSkip(launched)) skip = launched.skip
    else browser = launched
  })
  after(async () => {
    await browser?.close()
    await worker?.stop()
    await server?.close()
  })

  test('quick-publish a course from slides and see it in packages', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await signInBrowser(server, browser, tenantId, 'author@create.test', 'admin')
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(e.message))
    await navLink(page, 'Course creation').click()
    await page.getByRole('heading', { name: 'Course creation', level: 2 }).waitFor()
    await page.getByLabel('Course title', { exact: true }).fill('Ladder safety')
    await page.getByLabel('Slide 1 title').fill('Before you climb')
    await page.getByLabel('Slide 1 text').fill('Check the **feet** and the rungs')
    // Keyboard: "Add a slide" moves focus to the new slide's title.
    await page.getByRole('button', { name: 'Add a slide' }).focus()
    await page.keyboard.press('Enter')
    await page.waitForFunction(
      () => document.activeElement?.getAttribute('name') === 'slide-2-title',
    )
    await page.keyboard.type('Three points of contact')
    assert.equal(await page.getByLabel('Slide 2 title').inputValue(), 'Three points of contact')
    await page.getByLabel('Slide 2 text').fill('- Two hands, one foot\n- Or two feet, one hand')
    await checkPage(page, 'create')
    await page.getByRole('button', { name: 'Publish course' }).click()
    const done = page.getByRole('status').filter({ hasText: 'Published “Ladder safety”' })
    await done.waitFor({ timeout: 60_000 })
    assert.match((await done.textContent()) ?? '', /2 slides, SCORM 2004/)

    await navLink(page, 'Packages').click()
    await page.getByRole('cell', { name: 'Ladder safety' }).waitFor()
    assert.deepEqual(problems, [])
  })

  test('upload a .pptx and watch its conversion job reach done', async (t) => {
    if (!browser) return t.skip(skip)
    if (officeMissing) return t.skip(officeMissing)
    const page = await signInBrowser(server, browser, tenantId, 'deck@create.test', 'admin')
    await navLink(page, 'Course creation').click()
    await page.getByLabel('Presentation (.pptx)').setInputFiles(`${PPTX}oxs_Presentation.pptx`)
    await page.getByLabel('Course title (optional)').fill('Converted deck')
    await page.getByRole('button', { name: 'Upload and convert' }).click()
    const job = page.getByRole('region', { name: 'Converted deck' })
    await job
      .getByRole('status')
      .filter({ hasText: /Waiting to start|Converting|Done/ })
      .waitFor()
    await job.getByRole('status').filter({ hasText: 'Done · 2 slides' }).waitFor({
      timeout: 240_000,
    })
    assert.equal(await job.getByRole('progressbar').getAttribute('value'), '100')
    await job.getByRole('link', { name: 'Open the package' }).waitFor()
    await page
      .getByRole('row', { name: /Converted deck/ })
      .getByRole('cell', { name: 'Done' })
      .waitFor()
    await checkPage(page, 'create-converted')
  })
})
