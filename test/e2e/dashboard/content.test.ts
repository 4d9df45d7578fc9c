/**
 * The dashboard's content pages in headless Chromium against the real server, on each database:
 * sign in, the overview's charts, the mode switch, keyboard use; upload a package and watch the
 * progress bar, add and activate a version, launch a preview, archive and restore; filter
 * sessions, read one, export CSV; read the learner-progress report and export it. axe-core on
 * every page at desktop and phone width.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { isSkip, launchBrowser, type TestBrowser } from '../helpers/browser.ts'
import { apiClient, type LiveServer, until } from '../helpers/live-server.ts'
import {
  atWidths,
  check,
  type DashboardServer,
  ensureSignedIn,
  nav,
  settled,
  startDashboardServer,
} from './dashboard.helpers.ts'

const PASSWORD = 'owner password 12'

async function downloadText(page: Page, link: string): Promise<string> {
  const download = page.waitForEvent('download')
  await page.getByRole('link', { name: link }).click()
  const path = await (await download).path()
  return readFileSync(path, 'utf8')
}

describeEachDatabase('dashboard content pages in Chromium', (database) => {
  let server: DashboardServer
  let browser: TestBrowser | undefined
  let skip: string | undefined
  let packageId: string
  let packageTitle: string

  before(async () => {
    server = await startDashboardServer(database())
    const tenant = await server.createTenant()
    const api = apiClient({ apiUrl: server.apiUrl } as LiveServer, tenant)
    packageId = await api.uploadGolf('singlescobasic.zip')
    await api.launch(packageId, 'learner-1@example.test')
    await api.launch(packageId, 'learner-2@example.test')
    // A SCORM 2004 package: its sessions carry the sequencing engine's activity tree.
    const sequenced = await api.uploadGolf('RuntimeBasicCalls_SCORM20043rdEdition.zip')
    await api.launch(sequenced, 'learner-3@example.test')
    const got = await server.app.inject({
      url: `/api/v1/packages/${packageId}`,
      headers: { authorization: `Bearer ${tenant.testKey}` },
    })
    packageTitle = got.json().package.title
    await server.createUser(tenant.tenantId, 'owner@example.test', 'owner', PASSWORD)
    const launched = await launchBrowser({ viewport: { width: 1280, height: 800 } })
    if (isSkip(launched)) skip = launched.skip
    else browser = launched
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  test('sign in, read the overview charts, switch mode, move by keyboard', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await browser.page()
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(e.message))
    const shell = await page.goto(`${server.apiUrl}/dashboard/`)
    const csp = String(shell?.headers()['content-security-policy'])
    assert.match(csp, /script-src 'self'/)
    assert.match(csp, /style-src 'self'/)
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/)
    await page.getByRole('heading', { name: 'Sign in to Courseport' }).waitFor()
    await atWidths(page, 'login')
    await page.getByLabel('E-mail').fill('owner@example.test')
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('alert').filter({ hasText: 'Wrong e-mail or password' }).waitFor()
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()

    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    await settled(page)
    // Three launches today: the figures, the usage against the allotment, two uPlot charts.
    await page.getByRole('definition').filter({ hasText: /^3$/ }).first().waitFor()
    await page.getByText(/^3 of \d+ active learners in \d{4}-\d{2}/).waitFor()
    await page.getByText('70 % = ').waitFor()
    assert.equal(await page.locator('.chart canvas').count(), 2)
    await page
      .getByRole('img', { name: /Launches and completions per day: Launches total 3/ })
      .waitFor()
    await page.getByRole('cell', { name: 'package.launched' }).first().waitFor()
    await page.getByText('Show the numbers').first().click()
    await atWidths(page, 'overview')

    await page.getByLabel('Mode').selectOption('live')
    await page
      .getByRole('list', { name: 'Figures (live)' })
      .or(page.getByLabel('Figures (live)'))
      .waitFor()
    await page.getByText(/^0 of \d+ active learners/).waitFor()
    await page.getByLabel('Mode').selectOption('test')
    await page.getByLabel('Figures (test)').waitFor()

    // Keyboard: from the top of the page, Tab reaches the navigation and Enter opens a page.
    await page.locator('body').focus()
    let focused = ''
    for (let i = 0; i < 8 && focused !== 'Packages'; i++) {
      await page.keyboard.press('Tab')
      focused = await page.evaluate(() => document.activeElement?.textContent ?? '')
    }
    assert.equal(focused, 'Packages')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Packages', exact: true }).waitFor()
    // The page's content takes the focus, so the next Tab starts in the page, not the header.
    // The shell moves it in an effect after the new page has painted: wait for that, not less.
    await page.waitForFunction(() => document.activeElement?.id === 'content')
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'content')
    assert.deepEqual(problems, [])
  })

  test('upload a package with a progress bar, add and activate a version, preview, archive', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await browser.page()
    page.on('dialog', (d) => void d.accept())
    await ensureSignedIn(page, server.apiUrl, 'owner@example.test', PASSWORD)
    await page.goto(`${server.apiUrl}/dashboard/#/packages`)
    await page.getByRole('cell', { name: packageTitle }).first().waitFor()
    await atWidths(page, 'packages')

    // A slow upload link, so the bar is seen between empty and full.
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Network.enable')
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 256 * 1024,
    })
    const zip = fixture('scorm', 'golf', 'RuntimeBasicCalls_SCORM20043rdEdition.zip')
    await page.getByLabel('Package zip').setInputFiles({
      name: 'runtime-basic.zip',
      mimeType: 'application/zip',
      buffer: zip,
    })
    const puts: string[] = []
    page.on('request', (r) => {
      if (r.method() === 'PUT') puts.push(new URL(r.url()).pathname)
    })
    await page.getByRole('button', { name: 'Upload' }).click()
    const bar = page.getByRole('progressbar', { name: 'Upload progress' })
    const seen = new Set<number>()
    while (!(await page.getByRole('heading', { name: 'Versions' }).isVisible())) {
      const value = await bar.evaluate((el) => (el as HTMLProgressElement).value).catch(() => -1)
      if (value > 0 && value < 1) seen.add(Math.round(value * 100))
      await page.waitForTimeout(25)
    }
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    })
    assert.ok(seen.size >= 2, `the bar moved through partial values: ${[...seen].join(', ')}`)
    assert.equal(puts.length, 1, 'the file went by the presigned PUT')
    assert.match(puts[0] ?? '', /^\/uploads\//)
    await page.getByRole('cell', { name: /by owner@example\.test$/ }).waitFor()
    await page.getByText('imsmanifest.xml').waitFor()
    await page.getByText('What a learner can launch, in course order').waitFor()

    // A second version: stored inactive, then activated from its row.
    await page.getByLabel('Package zip').setInputFiles({
      name: 'runtime-basic-v2.zip',
      mimeType: 'application/zip',
      buffer: zip,
    })
    await page.getByRole('button', { name: 'Upload' }).click()
    await page.getByRole('button', { name: 'Activate version 2' }).click()
    await page.getByText('Version 2 is now the one new launches use.').waitFor()
    await page.getByRole('button', { name: 'Activate version 1' }).waitFor()
    await atWidths(page, 'package')

    // The preview opens the player on the content origin.
    const popup = page.context().waitForEvent('page')
    await page.getByRole('button', { name: 'Launch a preview' }).click()
    const player = await popup
    await player.waitForLoadState('domcontentloaded')
    assert.ok(player.url().startsWith(server.contentUrl), player.url())
    await player.close()
    await page.getByRole('link', { name: 'Open it again' }).waitFor()

    await page.getByRole('button', { name: 'Archive' }).click()
    await page.getByText(/^archived /).waitFor()
    await page.getByRole('button', { name: 'Restore' }).click()
    await page.getByRole('button', { name: 'Archive' }).waitFor()
  })

  test('filter sessions, read one, export the filtered CSV; read and export the report', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await browser.page()
    await ensureSignedIn(page, server.apiUrl, 'owner@example.test', PASSWORD)
    await nav(page, 'Sessions').click()
    await page.getByRole('link', { name: 'learner-1@example.test' }).waitFor()
    await page.getByLabel('Learner id').fill('learner-2@example.test')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.getByRole('link', { name: 'learner-1@example.test' }).waitFor({ state: 'detached' })
    await page.getByRole('link', { name: 'learner-2@example.test' }).waitFor()
    assert.match(page.url(), /#\/sessions\?learner_id=learner-2%40example\.test$/)
    await atWidths(page, 'sessions')
    const csv = await downloadText(page, 'Export CSV (all matching sessions)')
    assert.match(csv.split('\n')[0] ?? '', /learner_id/)
    assert.match(csv, /learner-2@example\.test/)
    assert.doesNotMatch(csv, /learner-1@example\.test/)

    await page.getByRole('link', { name: 'learner-2@example.test' }).click()
    await page.getByRole('heading', { name: /^Session of / }).waitFor()
    await page.getByRole('region', { name: /What the course stored/ }).waitFor()
    await page.getByRole('region', { name: "Each SCO's status" }).waitFor()
    await atWidths(page, 'session')

    // A SCORM 2004 session shows its activity tree.
    await nav(page, 'Sessions').click()
    await page.getByLabel('Learner id').fill('learner-3@example.test')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.getByRole('link', { name: 'learner-2@example.test' }).waitFor({ state: 'detached' })
    await page.getByRole('link', { name: 'learner-3@example.test' }).click()
    await page.getByRole('heading', { name: 'Activity tree' }).waitFor()
    await page.locator('.tree .tree li').filter({ hasText: 'Golf Explained' }).first().waitFor()
    await check(page, 'session-sequencing')

    await nav(page, 'Learner progress').click()
    // Two packages share the title (the earlier test uploaded the other): filter by id.
    await page
      .getByRole('row', { name: new RegExp(packageTitle) })
      .first()
      .waitFor()
    await page.getByLabel('Package id').fill(packageId)
    await page.getByRole('button', { name: 'Apply' }).click()
    const row = page.getByRole('row', { name: new RegExp(packageTitle) })
    await page.waitForURL(/#\/report\?package_id=/)
    await until('the filtered report', async () => (await row.count()) === 1)
    const cells = await row.getByRole('cell').allTextContents()
    assert.deepEqual(cells.slice(1, 4), ['2', '2', '0 %'])
    await page.getByText('Completion rate', { exact: true }).waitFor()
    await atWidths(page, 'report')
    const report = await downloadText(page, 'Export CSV')
    assert.match(report, new RegExp(packageTitle))
    await check(page, 'report')
  })
})
