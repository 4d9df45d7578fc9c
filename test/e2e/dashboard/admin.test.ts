/**
 * The dashboard's admin pages in headless Chromium against the real server, on each database:
 * register a webhook and send a test event that a local HTTPS receiver gets, re-queue the dead
 * letter it became, rotate the secret; create an API key (shown once, works) and revoke it
 * (stops working); invite a user (pending until used; another invitation revoked) who signs in
 * with the one-time link, is a viewer who cannot change anything, and changes their password.
 * axe-core on every page at desktop and phone width.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { describeEachDatabase } from '../../helpers/database.ts'
import { type Receiver, startReceiver } from '../../unit/http-egress/tls-receiver.ts'
import { isSkip, launchBrowser, type TestBrowser } from '../helpers/browser.ts'
import { until } from '../helpers/live-server.ts'
import {
  atWidths,
  type DashboardServer,
  ensureSignedIn,
  goTo,
  settled,
  signIn,
  startDashboardServer,
} from './dashboard.helpers.ts'

const OWNER = { email: 'owner@example.test', password: 'owner password 12' }

describeEachDatabase('dashboard admin pages in Chromium', (database) => {
  let server: DashboardServer
  let browser: TestBrowser | undefined
  let skip: string | undefined
  let receiver: Receiver
  let answer = 404

  before(async () => {
    server = await startDashboardServer(database())
    const tenant = await server.createTenant()
    await server.createUser(tenant.tenantId, OWNER.email, 'owner', OWNER.password)
    receiver = await startReceiver((_req, res) => {
      res.statusCode = answer
      res.end()
    })
    const launched = await launchBrowser({ viewport: { width: 1280, height: 800 } })
    if (isSkip(launched)) skip = launched.skip
    else browser = launched
  })
  after(async () => {
    await browser?.close()
    await receiver?.close()
    await server?.close()
  })

  test('a webhook gets a test event over HTTPS; its dead letter is re-queued', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await browser.page()
    page.on('dialog', (d) => void d.accept())
    await ensureSignedIn(page, server.apiUrl, OWNER.email, OWNER.password)
    await goTo(page, 'Webhooks')
    const url = `https://127.0.0.1:${receiver.port}/hook`
    await page.getByLabel('HTTPS URL').fill(url)
    await page.getByLabel('Label').fill('CRM')
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    const secret = await page.getByLabel('Signing secret').inputValue()
    assert.match(secret, /^whsec_/)
    await page.getByRole('cell', { name: url }).waitFor()
    await atWidths(page, 'webhooks')

    await page.getByRole('link', { name: 'Open the endpoint' }).click()
    await page.getByRole('heading', { name: 'CRM' }).waitFor()
    await page.getByRole('button', { name: 'Send test event' }).click()
    await page.getByText('Test event queued').waitFor()
    // The worker's part: the receiver answers 404, so the delivery is dead-lettered at once.
    const first = await until('the test event at the receiver', async () => {
      await server.runJobs()
      return receiver.hits.find((h) => h.url === '/hook')
    })
    assert.equal(JSON.parse(first.body).event, 'webhook.test')
    assert.match(String(first.headers['webhook-signature']), /^v1,/)
    await page.getByRole('button', { name: 'Refresh' }).click()
    await page.getByRole('cell', { name: 'dead letter' }).waitFor()
    await page.getByRole('cell', { name: '#1 HTTP 404' }).waitFor()
    await atWidths(page, 'webhook')

    answer = 200
    await page.getByRole('button', { name: /^Re-queue delivery / }).click()
    await page.getByText('Delivery re-queued').waitFor()
    await until('the re-queued delivery at the receiver', async () => {
      await server.runJobs()
      return receiver.hits.filter((h) => h.url === '/hook').length === 2
    })
    await page.getByRole('button', { name: 'Refresh' }).click()
    await page.getByRole('cell', { name: 'delivered', exact: true }).waitFor()

    await page.getByRole('button', { name: 'Rotate secret' }).click()
    const rotated = await page.getByLabel('New signing secret').inputValue()
    assert.match(rotated, /^whsec_/)
    assert.notEqual(rotated, secret)
  })

  test('an API key is shown once, works, and stops working when revoked', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await browser.page()
    await ensureSignedIn(page, server.apiUrl, OWNER.email, OWNER.password)
    await goTo(page, 'API keys')
    await page.getByLabel('Mode').last().selectOption('live')
    await page.getByRole('button', { name: 'Create key' }).click()
    const key = await page.getByLabel('New API key').inputValue()
    assert.match(key, /^cp_live_/)
    const list = () =>
      fetch(`${server.apiUrl}/api/v1/packages`, { headers: { authorization: `Bearer ${key}` } })
    assert.equal((await list()).status, 200)
    await atWidths(page, 'keys')
    const hint = `${key.slice(0, 12)}…`
    await page.getByRole('button', { name: `Revoke live key ${hint}`, exact: true }).click()
    await page.getByText(/^Key .* revoked\.$/).waitFor()
    assert.equal((await list()).status, 401)
  })

  test('an invited viewer signs in by the link, cannot change anything, changes password', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await browser.page()
    await ensureSignedIn(page, server.apiUrl, OWNER.email, OWNER.password)
    await goTo(page, 'Team')
    await page.getByLabel('E-mail').fill('viewer@example.test')
    await page.getByLabel('Role', { exact: true }).selectOption('viewer')
    await page.getByRole('button', { name: 'Create invite link' }).click()
    const link = await page.getByLabel('One-time link for viewer@example.test').inputValue()
    assert.match(link, new RegExp(`^${server.apiUrl}/dashboard/#invite=\\w+$`))
    const pending = page.getByRole('table', { name: 'Pending invitations' })
    await pending.getByRole('cell', { name: 'viewer@example.test', exact: true }).waitFor()

    // A second invitation, revoked: it leaves the list (its link stops working: integration test).
    // The page may be the webhook test's, whose handler accepts already: accept once, quietly.
    page.on('dialog', (d) => void d.accept().catch(() => undefined))
    await page.getByLabel('E-mail').fill('mistake@example.test')
    await page.getByRole('button', { name: 'Create invite link' }).click()
    await pending.getByRole('cell', { name: 'mistake@example.test', exact: true }).waitFor()
    await atWidths(page, 'team')
    await page
      .getByRole('button', { name: 'Revoke the invitation of mistake@example.test' })
      .click()
    await page.getByText('The invitation of mistake@example.test is revoked.').waitFor()
    await pending
      .getByRole('cell', { name: 'mistake@example.test', exact: true })
      .waitFor({ state: 'detached' })

    // The invitee, in a browser of their own.
    const second = await launchBrowser({ viewport: { width: 390, height: 844 } })
    if (isSkip(second)) return t.skip(second.skip)
    const other: TestBrowser = second
    const invitee = await other.page()
    try {
      await invitee.goto(link)
      await invitee.getByRole('heading', { name: 'Choose your password' }).waitFor()
      await atWidths(invitee, 'invite')
      await invitee.getByLabel('New password').fill('viewer password 1')
      await invitee.getByRole('button', { name: 'Set password and sign in' }).click()
      await invitee.getByRole('heading', { name: 'Overview' }).waitFor()
      await goTo(invitee, 'Packages')
      await invitee.getByRole('heading', { name: 'Packages', exact: true }).waitFor()
      await settled(invitee)
      assert.equal(await invitee.getByRole('button', { name: 'Upload' }).count(), 0)
      await goTo(invitee, 'Webhooks')
      await invitee.getByRole('link', { name: 'CRM' }).click()
      await invitee.getByRole('heading', { name: 'CRM' }).waitFor()
      assert.equal(await invitee.getByRole('button', { name: 'Send test event' }).count(), 0)
      await goTo(invitee, 'Team')
      await invitee.getByRole('cell', { name: 'viewer@example.test' }).waitFor()
      assert.equal(await invitee.getByRole('button', { name: 'Create invite link' }).count(), 0)
      await goTo(invitee, 'Account')
      await invitee.getByText('Signed in as viewer@example.test (viewer).').waitFor()
      await invitee.getByLabel('Current password').fill('viewer password 1')
      await invitee.getByLabel('New password').fill('viewer password 2')
      await invitee.getByRole('button', { name: 'Change password' }).click()
      await invitee.getByText('Password changed.').waitFor()
      await atWidths(invitee, 'account')
      await invitee.getByRole('button', { name: 'Sign out' }).click()
      await signIn(invitee, server.apiUrl, 'viewer@example.test', 'viewer password 2')
    } finally {
      await other.close()
    }

    // The owner sees the new user and makes them an admin.
    await page.reload()
    await page.getByRole('table', { name: 'Pending invitations' }).waitFor()
    assert.equal(
      await pending.getByRole('cell', { name: 'viewer@example.test', exact: true }).count(),
      0,
    )
    await page.getByLabel('Role of viewer@example.test').selectOption('admin')
    await page.getByText('viewer@example.test is now admin.').waitFor()

    // As an admin they invite too, but only admins and viewers (the API refuses the rest).
    const third = await launchBrowser({ viewport: { width: 1280, height: 800 } })
    if (isSkip(third)) return t.skip(third.skip)
    const adminBrowser: TestBrowser = third
    try {
      const admin = await adminBrowser.page()
      await signIn(admin, server.apiUrl, 'viewer@example.test', 'viewer password 2')
      await goTo(admin, 'Team')
      const roles = admin.getByLabel('Role', { exact: true })
      await roles.waitFor()
      const offered = await roles
        .locator('option')
        .evaluateAll((o) => o.map((e) => (e as HTMLOptionElement).value))
      assert.deepEqual(offered, ['viewer', 'admin'])
      await admin.getByLabel('E-mail').fill('colleague@example.test')
      await roles.selectOption('admin')
      await admin.getByRole('button', { name: 'Create invite link' }).click()
      await admin.getByLabel('One-time link for colleague@example.test').waitFor()
    } finally {
      await adminBrowser.close()
    }
  })
})
