/**
 * `/api/docs` offline: in Chromium with every non-loopback request blocked (and recorded), the
 * Scalar reference renders from the service's own assets, asks no vendor host for anything
 * (fonts, telemetry, the request proxy), and shows none of the buttons that need the vendor's
 * cloud; a "Test Request" goes straight to this server. axe-core finds nothing serious or
 * critical on it at desktop and phone width.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts'
import { isSkip, launchBrowser, type TestBrowser } from '../helpers/browser.ts'
import {
  type DashboardServer,
  seriousViolations,
  startDashboardServer,
} from './dashboard.helpers.ts'

let database: TestDatabase
let server: DashboardServer
let browser: TestBrowser | undefined
let skip: string | undefined

before(async () => {
  // The page does not depend on the database: SQLite is enough.
  database = await createTestDatabase('sqlite')
  server = await startDashboardServer(database)
  const launched = await launchBrowser({ viewport: { width: 1280, height: 800 } })
  if (isSkip(launched)) skip = launched.skip
  else browser = launched
})
after(async () => {
  await browser?.close()
  await server?.close()
  await database?.dispose()
})

test('the API reference works with the network cut off and never calls the vendor', async (t) => {
  if (!browser) return t.skip(skip)
  const page = await browser.page()
  const outside: string[] = []
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url())
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:' || url.protocol === 'blob:')
      return route.continue()
    outside.push(url.href)
    return route.abort('blockedbyclient')
  })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${server.apiUrl}/api/docs`)
  await page.getByRole('heading', { name: 'Courseport API', level: 1 }).waitFor()
  await page
    .getByRole('button', { name: /^Test Request/ })
    .first()
    .waitFor()
  await page.waitForLoadState('networkidle')

  for (const hosted of ['Ask AI', 'Deploy', 'Share', 'Configure', 'Developer Tools', 'Cursor']) {
    assert.equal(
      await page.getByRole('button', { name: hosted, exact: true }).count(),
      0,
      `"${hosted}" needs the vendor's cloud`,
    )
  }
  const fonts = await page.evaluate(() =>
    [...document.fonts].filter((f) => f.status !== 'unloaded').map((f) => f.family),
  )
  assert.deepEqual(fonts, [], 'no web font is loaded')

  // The API client sends to this server, not through the vendor's request proxy.
  await page.getByRole('button', { name: /^Test Request\s*\(get \/api\/v1\/packages\)$/ }).click()
  const dialog = page.getByRole('dialog')
  const sent = page.waitForRequest((r) => r.url().startsWith(`${server.apiUrl}/api/v1/packages?`))
  await dialog.getByRole('button', { name: /^Send/ }).first().click()
  assert.equal((await (await sent).response())?.status(), 401, 'answered by this server')
  assert.deepEqual(outside, [], 'requests to other hosts')
  assert.deepEqual(errors, [])
})

test('the API reference passes axe-core at desktop and phone width', async (t) => {
  if (!browser) return t.skip(skip)
  const page = await browser.page()
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 })
    await page.goto(`${server.apiUrl}/api/docs`)
    await page.getByRole('heading', { name: 'Courseport API', level: 1 }).waitFor()
    await page.waitForLoadState('networkidle')
    assert.equal(await page.getAttribute('html', 'lang'), 'en')
    assert.deepEqual(await seriousViolations(page), [], `axe at ${width} px`)
  }
})
