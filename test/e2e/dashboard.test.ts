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
import { createTestApp } from '../helpers/app.ts'
import type { TestDatabase } from '../helpers/database.ts'
import { describeEachDatabase } from '../helpers/database.ts'
import { fixture } from '../helpers/fixtures.ts'
import { isSkip, launchBrowser, type TestBrowser } from './helpers/browser.ts'
import { apiClient, freePorts, type LiveServer } from './helpers/live-server.ts'

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

/**
 * The live server of helpers/live-server.ts, whose webhook egress may also reach 127.0.0.1 (so an
 * endpoint can be registered there without a public DNS name).
 */
async function startServer(database: TestDatabase): Promise<LiveServer> {
  const [apiPort, contentPort] = await freePorts(2)
  const apiUrl = `http://127.0.0.1:${apiPort}`
  const contentUrl = `http://127.0.0.1:${contentPort}`
  const t = await createTestApp(database, {
    env: {
      PUBLIC_URL: apiUrl,
      CONTENT_URL: contentUrl,
      CONTENT_ORIGINS: 'single',
      EGRESS_ALLOW_ADDRESSES: '127.0.0.1',
    },
  })
  try {
    await t.app.listen({ host: '127.0.0.1', port: apiPort })
    await t.content.listen({ host: '127.0.0.1', port: contentPort })
  } catch (err) {
    await t.close()
    throw err
  }
  return { t, apiUrl, contentUrl, close: () => t.close() }
}

/** A link of the dashboard's navigation (pages repeat some names in their content). */
function nav(page: Page, name: string) {
  return page.getByRole('navigation').getByRole('link', { name, exact: true })
}

describeEachDatabase('dashboard in Chromium', (database) => {
  let server: LiveServer
  let browser: TestBrowser | undefined
  let skip: string | undefined
  let inviteToken: string
  let managerToken: string
  let packageTitle: string

  before(async () => {
    server = await startServer(database())
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
    managerToken = (
      await accounts.createInvite(
        tenant.tenantId,
        { email: 'manager@example.test', role: 'owner' },
        null,
      )
    ).token
    const member = await accounts.createInvite(
      tenant.tenantId,
      { email: 'member@example.test', role: 'viewer' },
      null,
    )
    await accounts.acceptInvite(member.token, 'member password 1')
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

    // The overview is the landing page: one package, two learners this month.
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    await page.getByRole('definition').filter({ hasText: /^2$/ }).waitFor()
    await check(page, 'overview')
    await nav(page, 'Packages').click()
    await page.getByRole('heading', { name: 'Packages' }).waitFor()
    await page.getByRole('cell', { name: packageTitle }).waitFor()
    await check(page, 'packages')

    await nav(page, 'Sessions').click()
    await page.getByRole('cell', { name: 'learner-2@example.test' }).waitFor()
    await check(page, 'sessions')

    await nav(page, 'Learner progress').click()
    await page.getByRole('heading', { name: 'Learner progress' }).waitFor()
    const row = page.getByRole('row', { name: new RegExp(packageTitle) })
    await row.waitFor()
    const cells = await row.getByRole('cell').allTextContents()
    assert.deepEqual(cells.slice(1), ['2', '2', '0 %', '—', '—', '0 s', '0 s'])
    await check(page, 'report')

    await nav(page, 'Account').click()
    await page.getByLabel('E-mail').fill('viewer@example.test')
    await page.getByRole('button', { name: 'Create invite link' }).click()
    const viewerLink = await page.getByLabel('One-time link for viewer@example.test').inputValue()
    assert.match(viewerLink, new RegExp(`^${server.apiUrl}/dashboard/#invite=\\w+$`))
    await check(page, 'account')

    await nav(page, 'Learner progress').click()
    await page.getByLabel('Mode').selectOption('live')
    await page.getByRole('caption').filter({ hasText: '(live)' }).waitFor()
    await page.getByRole('cell', { name: 'Nothing yet.' }).waitFor()
    await page.getByLabel('Mode').selectOption('test')

    await page.setViewportSize({ width: 390, height: 844 })
    await nav(page, 'Packages').click()
    await page.getByRole('cell', { name: packageTitle }).waitFor()
    await check(page, 'packages')
    await nav(page, 'Learner progress').click()
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
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    await nav(page, 'Account').click()
    await page.getByText('Signed in as viewer@example.test (viewer).').waitFor()
    assert.equal(await page.getByRole('button', { name: 'Create invite link' }).count(), 0)

    // The one failed sign-in shows as a 401 in the console; nothing else may.
    assert.deepEqual(
      problems.filter((p) => !/401/.test(p)),
      [],
    )
  })

  test('an owner uploads, launches and archives a package, manages a webhook, the team and keys', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await browser.page()
    await page.setViewportSize({ width: 1280, height: 800 })
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(e.message))
    page.on('dialog', (d) => void d.accept())
    await page.goto(`${server.apiUrl}/dashboard/#invite=${managerToken}`)
    await page.getByLabel('New password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Set password and sign in' }).click()
    await page.getByRole('heading', { name: 'Overview' }).waitFor()

    // Upload through the form: the progress bar fills, then the package's own page opens.
    await nav(page, 'Packages').click()
    await page.getByLabel('Package zip').setInputFiles({
      name: 'runtime-basic.zip',
      mimeType: 'application/zip',
      buffer: fixture('scorm', 'golf', 'RuntimeBasicCalls_SCORM20043rdEdition.zip'),
    })
    await page.getByRole('button', { name: 'Upload' }).click()
    await page.getByRole('heading', { name: 'Versions' }).waitFor()
    await page.getByRole('cell', { name: 'manager@example.test', exact: false }).waitFor()
    await check(page, 'package')
    const popup = page.context().waitForEvent('page')
    await page.getByRole('button', { name: 'Launch as test learner' }).click()
    const player = await popup
    assert.match(player.url(), /^http:\/\/127\.0\.0\.1:\d+\//)
    await player.close()
    await page.getByRole('button', { name: 'Archive' }).click()
    await page.getByText(/^archived /).waitFor()
    await page.getByRole('button', { name: 'Restore' }).waitFor()

    // A webhook: its secret shown once, a test event in its history.
    await nav(page, 'Webhooks').click()
    await page.getByLabel('HTTPS URL').fill('https://127.0.0.1:9/hook')
    await page.getByLabel('Label').fill('CRM')
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    assert.match(await page.getByLabel('Signing secret').inputValue(), /^whsec_/)
    await page.getByRole('cell', { name: 'https://127.0.0.1:9/hook' }).waitFor()
    await check(page, 'webhooks')
    await page.getByRole('link', { name: 'Open the endpoint' }).click()
    await page.getByRole('heading', { name: 'CRM' }).waitFor()
    await page.getByRole('button', { name: 'Send test event' }).click()
    await page.getByRole('cell', { name: 'webhook.test' }).waitFor()
    await page.getByRole('button', { name: 'Rotate secret' }).click()
    assert.match(await page.getByLabel('New signing secret').inputValue(), /^whsec_/)
    await check(page, 'webhook')

    await nav(page, 'Team').click()
    await page.getByRole('cell', { name: 'member@example.test', exact: true }).waitFor()
    await page.getByLabel('Role of member@example.test').selectOption('admin')
    await page.getByText('member@example.test is now admin.').waitFor()
    await check(page, 'team')

    await nav(page, 'API keys').click()
    await page.getByRole('button', { name: 'Create key' }).click()
    assert.match(await page.getByLabel('New API key').inputValue(), /^cp_test_/)
    await page
      .getByRole('button', { name: /^Revoke test key/ })
      .first()
      .click()
    await page.getByRole('cell', { name: /^revoked / }).waitFor()
    await check(page, 'keys')

    await page.setViewportSize({ width: 390, height: 844 })
    await nav(page, 'Overview').click()
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    await check(page, 'overview')
    for (const [name, heading] of [
      ['Webhooks', 'Webhooks'],
      ['Team', 'Team'],
      ['API keys', 'API keys'],
    ] as const) {
      await nav(page, name).click()
      await page.getByRole('heading', { name: heading, exact: true }).waitFor()
      await page.locator('main[aria-busy]').waitFor({ state: 'detached' })
      await check(page, name.toLowerCase().replace(' ', '-'))
    }
    await nav(page, 'Packages').click()
    await page.getByRole('link', { name: packageTitle }).first().click()
    await page.getByRole('heading', { name: 'Versions' }).waitFor()
    await check(page, 'package')
    assert.deepEqual(problems, [])
  })
})
