/**
 * Every presentation in ../shared/fixtures/pptx (real files from other projects) goes through
 * the API as a user would send it: valid decks become courses with one slide per visible slide
 * and every slide's text, which re-import through the upload validation and play to completion
 * in Chromium; broken and encrypted files are refused with 422. The pipeline does not depend on
 * the database dialect (the API suites run on both), so this sweep runs on SQLite only.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { readPresentation } from '../../../src/modules/conversions/ooxml/index.ts'
import { isSkip, launchBrowser, type TestBrowser } from '../../e2e/helpers/browser.ts'
import { bearer, type TestTenant } from '../../helpers/app.ts'
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { officeSkipReason } from '../../unit/office/office.helper.ts'
import { readZip } from '../../unit/publish/course-zip.helper.ts'
import {
  createListeningApp,
  downloadPackage,
  fixtureRows,
  getConversion,
  PPTX,
  pageText,
  postConversion,
  rawSlideTexts,
  runJobs,
} from './conversion.helper.ts'
import { playToLastSlide, waitForCompleted } from './course-player.helper.ts'

const rows = fixtureRows()
const officeMissing = await officeSkipReason()
const summary: string[] = []

describe('every .pptx fixture through the conversion API [sqlite]', () => {
  let database: TestDatabase
  let t: Awaited<ReturnType<typeof createListeningApp>>
  let tenant: TestTenant
  let browser: TestBrowser | undefined
  /** Why the play-through is skipped; launchBrowser prints it, and throws instead under CI=true. */
  let browserSkip: string | undefined
  before(async () => {
    database = await createTestDatabase('sqlite')
    t = await createListeningApp(database)
    tenant = await t.createTenant('enterprise')
    const launched = await launchBrowser({ viewport: { width: 1280, height: 800 } })
    if (isSkip(launched)) browserSkip = launched.skip
    else browser = launched
  })
  after(async () => {
    await browser?.close()
    await t.close()
    await database.dispose()
    console.log(`\nConversion per fixture:\n${summary.join('\n')}\n`)
  })

  const jobsTotal = async () =>
    (await t.app.inject({ url: '/api/v1/conversions', headers: bearer(tenant.testKey) })).json()
      .total as number

  for (const row of rows) {
    const path = `${PPTX}${row.file}`
    if (row.expect === 'fail' || row.slides === 0) {
      test(`${row.file}: refused with 422 and a clear message, no job`, async () => {
        const before = await jobsTotal()
        const res = await postConversion(t, tenant.testKey, path)
        assert.equal(res.statusCode, 422, res.body)
        const { error } = res.json()
        assert.equal(error.code, 'unprocessable')
        if (row.file.includes('encrypted')) assert.match(error.message, /password-protected/)
        else if (row.slides === 0) assert.match(error.message, /no slides/)
        else assert.match(error.message, /damaged or incomplete/)
        assert.equal(await jobsTotal(), before, 'no job was created')
        summary.push(`${row.file.padEnd(40)} refused: ${error.details.reason}`)
      })
      continue
    }
    const visible = (row.slides ?? 0) - (row.hidden ?? 0)
    test(`${row.file}: ${visible} slide(s) with their text, re-imports, plays to completion`, async (ctx) => {
      const created = await postConversion(t, tenant.testKey, path)
      assert.equal(created.statusCode, 201, created.body)
      assert.equal(created.json().slide_count, visible)
      assert.equal(created.json().status, 'queued')
      const started = performance.now()
      await runJobs(t)
      const ms = performance.now() - started
      const job = await getConversion(t, tenant.testKey, created.json().job_id)
      assert.equal(job.status, 'completed', job.error)
      assert.equal(job.slide_count, visible)
      assert.deepEqual(job.progress, { done: visible, total: visible, percent: 100 })
      assert.equal(job.rendering, officeMissing ? 'text_only' : 'libreoffice')

      const { zip, files } = await downloadPackage(t, tenant.testKey, job.package_id)
      const html = (files.get('index.html') as Buffer).toString('utf8')
      assert.equal(html.match(/<section class="slide/g)?.length, visible)
      const pictures = [...files.keys()].filter((f) => /^assets\/s\d+-slide\.jpg$/.test(f))
      assert.equal(pictures.length, officeMissing ? 0 : visible)

      // Every text run of every visible slide is in the page, as text.
      const text = pageText(html)
      const deck = await readPresentation(path)
      const parts = await readZip(path)
      for (const slide of deck.slides.filter((s) => !s.hidden)) {
        const xml = parts.get(slide.partName)?.toString('utf8') ?? ''
        for (const raw of rawSlideTexts(xml)) {
          assert.ok(text.includes(raw), `slide ${slide.index}: "${raw}" missing from the course`)
        }
      }

      // The generated zip passes the same validation as any upload.
      const upload = multipartFile(zip, { filename: 'reimport.zip' })
      const reimport = await t.app.inject({
        method: 'POST',
        url: '/api/v1/packages/upload',
        payload: upload.payload,
        headers: { ...upload.headers, ...bearer(tenant.testKey) },
      })
      assert.equal(reimport.statusCode, 201, reimport.body)
      assert.equal(reimport.json().package.scorm_version, '2004')

      await ctx.test('plays to completion in Chromium', async (sub) => {
        if (!browser) return sub.skip(browserSkip)
        const launch = await t.app.inject({
          method: 'POST',
          url: `/api/v1/packages/${job.package_id}/launch`,
          headers: bearer(tenant.testKey),
          payload: { user_id: `learner-${row.file}` },
        })
        assert.equal(launch.statusCode, 200, launch.body)
        const page = await browser.page()
        await playToLastSlide(page, launch.json().launch_url, visible)
        await waitForCompleted(t, tenant.testKey, launch.json().session_id)
        await page.goto('about:blank') // ends the session: pagehide commits and terminates
      })
      const codes = job.warnings.map((w: { code: string }) => w.code).join(',')
      summary.push(
        `${row.file.padEnd(40)} ${String(visible).padStart(3)} slides  ${(ms / 1000).toFixed(1).padStart(5)} s  ${job.rendering}${codes ? `  warnings: ${codes}` : ''}`,
      )
    })
  }
})
