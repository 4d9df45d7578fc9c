/**
 * The dashboard in headless Chromium against the real server: accept the owner's one-time link,
 * read packages, sessions and the learner-progress report, switch to live data, sign out and in
 * again. axe-core checks each page (no serious or critical violation), at desktop and phone
 * width; screenshots go to DASHBOARD_SCREENSHOTS when set.
 */
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { AccountService } from '../../src/modules/accounts/account.service.ts'
import { describeEachDatabase } from '../helpers/database.ts'
import { isSkip, launchBrowser, type TestBrowser } from './helpers/browser.ts'
import { apiClient, type LiveServer, startLiveServer } from './helpers/live-server.ts'

const AXE = readFileSync(
  join(import.meta.dirname, '../../node_modules/axe-core/axe.min.js'),
  'utf8',
)
const SHOTS = process.env.DASHBOARD_SCREENSHOTS
const PASSWORD = 'dashboard e2e password'

interface AxeViolation {
  id: string
  impact: string | null
  nodes: { target: string[] }[]
}

/** axe-core's serious and critical findings on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  // CDP evaluation is not subject to the page's CSP (which rightly forbids injected scripts).
  await page.evaluate(AXE)
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe
    return (await axe.run()).violations
  })
  return (violations as AxeViolation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

async function check(page: Page, name: string): Promise<void> {
  assert.deepEqual(await seriousViolations(page), [], `axe on ${name}`)
  if (SHOTS) {
    mkdirSync(SHOTS, { recursive: true })
    const size = page.viewportSize()
    await page.screenshot({ path: join(SHOTS, `${name}-${size?.width}x${size?.height}.png`) })
  }
}

describeEachDatabase('dashboard in Chromium', (database) => {
  let server: LiveServer
  let browser: TestBrowser | undefined
  let skip: string | undefined
  let inviteToken: string
  let packageTitle: string

  before(async () => {
    server = await startLiveServer(database())
    const tenant = await server.t.createTenant()
    const api = apiClient(server, tenant)
    const packageId = await api.uploadGolf('singlescobasic.zip')
    await api.launch(packageId, 'learner-1@example.test')
    await api.launch(packageId, 'learner-2@example.test')
    const pkgs = await server.t.app.inject({
      method: 'GET',
      url: `/api/v1/packages/${packageId}`,
      headers: { authorization: `Bearer ${tenant.testKey}` },
    })
    packageTitle = pkgs.json().package.title
    const accounts = new AccountService({ db: server.t.ctx.db.kysely, clock: server.t.ctx.clock })
    const invite = await accounts.createInvite(
      tenant.tenantId,
      { email: 'owner@example.test', role: 'owner' },
      null,
    )
    inviteToken = invite.token
    const launched = await launchBrowser({ viewport: { width: 1280, height: 800 } })
    if (isSkip(launched)) skip = launched.skip
    else browser = launched
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  test('sign in by the one-time link, read every page, switch mode, sign out and in', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await browser.page()
    const problems: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text())
    })
    page.on('pageerror', (e) => problems.push(e.message))

    const shell = await page.goto(`${server.apiUrl}/dashboard/#invite=${inviteToken}`)
    const csp = String(shell?.headers()['content-security-policy'])
    assert.match(csp, /script-src 'self'/)
    assert.doesNotMatch(csp, /unsafe-inline/)
    await page.getByRole('heading', { name: 'Choose your password' }).waitFor()
    await check(page, 'invite')
    await page.getByLabel('New password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Set password and sign in' }).click()

    await page.getByRole('heading', { name: 'Packages' }).waitFor()
    await page.getByRole('cell', { name: packageTitle }).waitFor()
    await check(page, 'packages')

    await page.getByRole('link', { name: 'Sessions' }).click()
    await page.getByRole('cell', { name: 'learner-2@example.test' }).waitFor()
    await check(page, 'sessions')

    await page.getByRole('link', { name: 'Learner progress' }).click()
    await page.getByRole('heading', { name: 'Learner progress' }).waitFor()
    const row = page.getByRole('row', { name: new RegExp(packageTitle) })
    await row.waitFor()
    const cells = await row.getByRole('cell').allTextContents()
    assert.deepEqual(cells.slice(1), ['2', '2', '0 %', '—', '—', '0 s', '0 s'])
    await check(page, 'report')

    await page.getByRole('link', { name: 'Account' }).click()
    await page.getByLabel('E-mail').fill('viewer@example.test')
    await page.getByRole('button', { name: 'Create invite link' }).click()
    const viewerLink = await page.getByLabel('One-time link for viewer@example.test').inputValue()
    assert.match(viewerLink, new RegExp(`^${server.apiUrl}/dashboard/#invite=\\w+$`))
    await check(page, 'account')

    await page.getByRole('link', { name: 'Learner progress' }).click()
    await page.getByLabel('Mode').selectOption('live')
    await page.getByRole('caption').filter({ hasText: '(live)' }).waitFor()
    await page.getByRole('cell', { name: 'Nothing yet.' }).waitFor()
    await page.getByLabel('Mode').selectOption('test')

    await page.setViewportSize({ width: 390, height: 844 })
    await page.getByRole('link', { name: 'Packages' }).click()
    await page.getByRole('cell', { name: packageTitle }).waitFor()
    await check(page, 'packages')
    await page.getByRole('link', { name: 'Learner progress' }).click()
    await page.getByRole('row', { name: new RegExp(packageTitle) }).waitFor()
    await check(page, 'report')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in to Courseport' }).waitFor()
    await check(page, 'login')
    await page.setViewportSize({ width: 1280, height: 800 })
    await check(page, 'login')
    await page.getByLabel('E-mail').fill('owner@example.test')
    await page.getByLabel('Password').fill('wrong password here')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('alert').filter({ hasText: 'Wrong e-mail or password' }).waitFor()
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    // Back where the session ended (the page lives in the URL fragment).
    await page.getByRole('heading', { name: 'Learner progress' }).waitFor()

    // The invited viewer opens the link, chooses a password and is signed in as themselves.
    await page.goto(viewerLink)
    await page.getByLabel('New password').fill('viewer password 1')
    await page.getByRole('button', { name: 'Set password and sign in' }).click()
    await page.getByRole('heading', { name: 'Packages' }).waitFor()
    await page.getByRole('link', { name: 'Account' }).click()
    await page.getByText('Signed in as viewer@example.test (viewer).').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Create invite link' }).count(), 0)

    // The one failed sign-in shows as a 401 in the console; nothing else may.
    assert.deepEqual(
      problems.filter((p) => !/401/.test(p)),
      [],
    )
  })
})
