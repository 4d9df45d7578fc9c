/**
 * The Dispatches page in headless Chromium against the real server: an admin creates a dispatch
 * with a licence limit, downloads its wrapper zip (a real SCORM package naming the dispatch),
 * opens it, raises its licence limit on the edit form and pauses it; a wrapper launch over the
 * limit shows up as a refused launch. A viewer sees the page without the form. axe-core at
 * desktop and phone width on each view.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { describeEachDatabase } from '../helpers/database.ts'
import { readZip } from '../unit/publish/course-zip.helper.ts'
import { isSkip, launchBrowser, type TestBrowser } from './helpers/browser.ts'
import { checkPage, navLink, signInBrowser } from './helpers/dashboard-session.ts'
import { apiClient, type LiveServer, startLiveServer } from './helpers/live-server.ts'

describeEachDatabase('dashboard dispatches page in Chromium', (database) => {
  let server: LiveServer
  let browser: TestBrowser | undefined
  let skip: string | undefined
  let tenantId: string
  let packageTitle: string

  before(async () => {
    server = await startLiveServer(database())
    const tenant = await server.t.createTenant()
    tenantId = tenant.tenantId
    const packageId = await apiClient(server, tenant).uploadGolf('singlescobasic.zip')
    const pkg = await fetch(`${server.apiUrl}/api/v1/packages/${packageId}`, {
      headers: { authorization: `Bearer ${tenant.testKey}` },
    })
    packageTitle = ((await pkg.json()) as { package: { title: string } }).package.title
    const launched = await launchBrowser({ viewport: { width: 1280, height: 900 } })
    if (isSkip(launched)) skip = launched.skip
    else browser = launched
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  test('create a dispatch, download its wrapper zip, pause it, see a refused launch', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await signInBrowser(server, browser, tenantId, 'admin@dispatch.test', 'admin')
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(e.message))
    page.on('dialog', (d) => void d.accept())

    await navLink(page, 'Dispatches').click()
    await page.getByRole('heading', { name: 'Dispatches', level: 2 }).waitFor()
    await page.getByRole('cell', { name: 'No dispatch yet.' }).waitFor()
    await checkPage(page, 'dispatches-empty')
    await page.getByLabel('Package').selectOption({ label: `${packageTitle} (SCORM 1.2)` })
    await page.getByLabel('Name').fill('Acme Corp LMS')
    await page.getByLabel('Licence limit (optional)').fill('1')
    await page.getByLabel('Tags (optional)').fill('acme, pilot')
    await page.getByRole('button', { name: 'Create dispatch' }).click()
    await page.getByRole('status').filter({ hasText: 'Created “Acme Corp LMS”' }).waitFor()
    const row = page.getByRole('row', { name: /Acme Corp LMS/ })
    await row.getByRole('cell', { name: '0 of 1' }).waitFor()

    // The wrapper zip, downloaded as a user would: a SCORM package that opens this dispatch.
    const download = page.waitForEvent('download')
    await row.getByRole('link', { name: 'Download wrapper of Acme Corp LMS' }).click()
    const file = await download
    assert.match(file.suggestedFilename(), /\.zip$/)
    const dir = await mkdtemp(join(tmpdir(), 'cp-wrapper-'))
    try {
      await file.saveAs(join(dir, 'wrapper.zip'))
      const entries = await readZip(join(dir, 'wrapper.zip'))
      const manifest = entries.get('imsmanifest.xml')?.toString('utf8') ?? ''
      assert.match(manifest, /<manifest/)
      const all = [...entries.values()].map((b) => b.toString('utf8')).join('\n')
      assert.match(all, /\/dispatch\/dsp_\w+\/frame\?token=/)
      assert.ok((await readFile(join(dir, 'wrapper.zip'))).length > 100)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
    await checkPage(page, 'dispatches')

    // Two learners launch from the wrapper; the second finds no seat.
    await row.getByRole('link', { name: 'Acme Corp LMS', exact: true }).click()
    await page.getByRole('heading', { name: 'Dispatch: Acme Corp LMS' }).waitFor()
    const launchUrl = await dispatchLaunchUrl(page)
    assert.equal(await wrapperLaunch(server, launchUrl, 'learner-1'), 200)
    assert.equal(await wrapperLaunch(server, launchUrl, 'learner-2'), 403)
    await page.reload()
    await page.getByRole('cell', { name: 'All seats taken' }).waitFor()
    await page.getByRole('cell', { name: 'learner-2' }).waitFor()
    await page.getByRole('definition').filter({ hasText: '1 of 1 · full' }).waitFor()

    // The admin raises the licence limit on the edit form: the second learner now finds a seat.
    const edit = page.getByRole('form', { name: 'Edit' })
    assert.equal(await edit.getByLabel('Licence limit', { exact: true }).inputValue(), '1')
    await edit.getByLabel('Licence limit', { exact: true }).fill('2')
    await edit.getByLabel('Tags', { exact: true }).fill('acme, pilot, renewed')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await edit.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    await page.getByRole('definition').filter({ hasText: '1 of 2' }).waitFor()
    await page.getByRole('definition').filter({ hasText: 'acme, pilot, renewed' }).waitFor()
    assert.equal(await wrapperLaunch(server, launchUrl, 'learner-2'), 200)
    await checkPage(page, 'dispatch-edited')

    await page.getByRole('button', { name: 'Pause dispatch' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: 'Done: the dispatch is now paused.' })
      .waitFor()
    await page.getByRole('button', { name: 'Resume dispatch' }).waitFor()
    assert.equal(await wrapperLaunch(server, launchUrl, 'learner-1'), 403)
    await checkPage(page, 'dispatch-detail')

    await navLink(page, 'Dispatches').click()
    await page
      .getByRole('row', { name: /Acme Corp LMS/ })
      .getByRole('cell', { name: 'Paused' })
      .waitFor()
    assert.deepEqual(problems, [])
  })

  test('a viewer sees dispatches but no form and no change buttons', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await signInBrowser(server, browser, tenantId, 'viewer@dispatch.test', 'viewer')
    await navLink(page, 'Dispatches').click()
    await page.getByText('an admin or owner changes them').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Create dispatch' }).count(), 0)
    await page.getByRole('link', { name: 'Acme Corp LMS', exact: true }).click()
    await page.getByRole('heading', { name: 'Dispatch: Acme Corp LMS' }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Resume dispatch' }).count(), 0)
    await page.getByRole('link', { name: 'Download wrapper zip' }).waitFor()
  })
})

/** The frame URL the wrapper opens, read as the API reads it (the page shows no token). */
async function dispatchLaunchUrl(page: import('playwright-core').Page): Promise<string> {
  const id = /#\/dispatches\/(dsp_\w+)/.exec(page.url())?.[1]
  assert.ok(id, page.url())
  const answer = await page.evaluate(async (dispatchId) => {
    const res = await fetch(`/api/customer/dispatches/${dispatchId}?mode=test`)
    return (await res.json()) as { launchUrl: string }
  }, id)
  return answer.launchUrl
}

/** A launch as the wrapper's frame page posts it, from a client LMS's origin. */
async function wrapperLaunch(server: LiveServer, launchUrl: string, learner: string) {
  const url = new URL(launchUrl)
  const id = /\/dispatch\/([^/]+)\/frame/.exec(url.pathname)?.[1]
  const res = await fetch(`${server.contentUrl}/dispatch/${id}/launch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token: url.searchParams.get('token'),
      origin: 'https://lms.example.test',
      learner_id: learner,
    }),
  })
  return res.status
}
