/**
 * Makes the screenshots in docs/images/ (not a test): converts a fixture deck through the API,
 * launches it in the hosted player and captures it in headless Chromium at desktop and phone
 * widths. Run: ./node_modules/.bin/node test/integration/conversions/docs-screenshots.script.ts
 *   [deck file in ../shared/fixtures/pptx] [slide number] [output directory]
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isSkip, launchBrowser } from '../../e2e/helpers/browser.ts'
import { bearer } from '../../helpers/app.ts'
import { createTestDatabase } from '../../helpers/database.ts'
import {
  createListeningApp,
  getConversion,
  PPTX,
  postConversion,
  runJobs,
} from './conversion.helper.ts'
import { courseFrame } from './course-player.helper.ts'

const [deck = 'oxs_O12Typical.pptx', slideArg = '2', outArg] = process.argv.slice(2)
const out = outArg ?? fileURLToPath(new URL('../../../docs/images/', import.meta.url))
mkdirSync(out, { recursive: true })

const database = await createTestDatabase('sqlite')
const t = await createListeningApp(database)
try {
  const tenant = await t.createTenant('growth')
  const created = await postConversion(t, tenant.testKey, `${PPTX}${deck}`)
  await runJobs(t)
  const job = await getConversion(t, tenant.testKey, created.json().job_id)
  if (job.status !== 'completed') throw new Error(`conversion ${job.status}: ${job.error}`)
  const shots = [
    { name: 'converted-deck-desktop.png', viewport: { width: 1280, height: 800 } },
    { name: 'converted-deck-phone.png', viewport: { width: 390, height: 844 } },
  ]
  for (const shot of shots) {
    const browser = await launchBrowser({ viewport: shot.viewport })
    if (isSkip(browser)) throw new Error(browser.skip)
    try {
      const launch = await t.app.inject({
        method: 'POST',
        url: `/api/v1/packages/${job.package_id}/launch`,
        headers: bearer(tenant.testKey),
        payload: { user_id: `screenshots-${shot.name}` },
      })
      const page = await browser.page()
      await page.emulateMedia({ reducedMotion: 'reduce' }) // no fade caught half-way
      await page.goto(launch.json().launch_url)
      const frame = await courseFrame(page)
      for (let n = 2; n <= Number(slideArg); n++) await frame.click('.nav-button.next')
      await frame.waitForFunction(
        (n) => document.querySelector('.counter')?.textContent?.startsWith(`Slide ${n} of`),
        Number(slideArg),
      )
      await frame.waitForFunction(() =>
        [...document.querySelectorAll<HTMLImageElement>('section.slide:not([hidden]) img')].every(
          (img) => img.complete,
        ),
      )
      await page.screenshot({ path: join(out, shot.name) })
      process.stdout.write(`${join(out, shot.name)}\n`)
    } finally {
      await browser.close()
    }
  }
} finally {
  await t.close()
  await database.dispose()
}
