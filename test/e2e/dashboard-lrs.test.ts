/**
 * The LRS credentials page in headless Chromium against the real server: an owner reads the
 * /xapi endpoint, creates a credential and sees its secret once, content uses it for a real
 * POST /xapi/statements, and once revoked on the page the same request is refused with 401.
 * A viewer sees the list without the form. axe-core at desktop and phone width.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import { describeEachDatabase } from '../helpers/database.ts'
import { isSkip, launchBrowser, type TestBrowser } from './helpers/browser.ts'
import { checkPage, navLink, signInBrowser } from './helpers/dashboard-session.ts'
import { type LiveServer, startLiveServer } from './helpers/live-server.ts'

/** A statement as content sends it, with the credential's HTTP Basic pair. */
async function postStatement(endpoint: string, key: string, secret: string): Promise<number> {
  const res = await fetch(`${endpoint}statements`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`,
      'content-type': 'application/json',
      'x-experience-api-version': '2.0.0',
    },
    body: JSON.stringify({
      id: randomUUID(),
      actor: { mbox: 'mailto:learner@example.test', name: 'Learner' },
      verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { en: 'completed' } },
      object: { id: 'https://example.test/courses/ladder-safety' },
    }),
  })
  await res.arrayBuffer()
  return res.status
}

describeEachDatabase('dashboard LRS page in Chromium', (database) => {
  let server: LiveServer
  let browser: TestBrowser | undefined
  let skip: string | undefined
  let tenantId: string

  before(async () => {
    server = await startLiveServer(database())
    tenantId = (await server.t.createTenant()).tenantId
    const launched = await launchBrowser({ viewport: { width: 1280, height: 900 } })
    if (isSkip(launched)) skip = launched.skip
    else browser = launched
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  test('create a credential, see its secret once, use it on /xapi, revoke it: 401', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await signInBrowser(server, browser, tenantId, 'owner@lrs.test', 'owner')
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(e.message))
    page.on('dialog', (d) => void d.accept())
    await navLink(page, 'LRS').click()
    await page.getByRole('heading', { name: 'LRS credentials', level: 2 }).waitFor()
    const endpoint = await page.getByLabel('xAPI endpoint').inputValue()
    assert.equal(endpoint, `${server.apiUrl}/xapi/`)
    await checkPage(page, 'lrs-empty')

    await page.getByLabel('Label').fill('Ladder course')
    await page.getByLabel('Scope').selectOption({ label: 'Read and write everything' })
    await page.getByRole('button', { name: 'Create credential' }).click()
    const key = await page.getByLabel('Key (HTTP Basic user name)').inputValue()
    const secret = await page.getByLabel('Secret (HTTP Basic password)').inputValue()
    assert.match(key, /^xk_test_/)
    assert.ok(secret.length >= 32)
    await page
      .getByRole('row', { name: /Ladder course/ })
      .getByRole('cell', { name: 'Active' })
      .waitFor()
    await checkPage(page, 'lrs-created')

    assert.equal(await postStatement(endpoint, key, secret), 200)

    // Shown once: after a reload the secret is nowhere on the page.
    await page.reload()
    await page.getByRole('cell', { name: 'Ladder course', exact: true }).waitFor()
    assert.ok(!(await page.content()).includes(secret))

    await page.getByRole('button', { name: 'Revoke Ladder course' }).click()
    await page.getByRole('status').filter({ hasText: 'Revoked “Ladder course”' }).waitFor()
    await page
      .getByRole('row', { name: /Ladder course/ })
      .getByRole('cell', { name: /^Revoked / })
      .waitFor()
    assert.equal(await postStatement(endpoint, key, secret), 401)
    assert.deepEqual(problems, [])
  })

  test('a viewer sees the endpoint and the list but cannot create or revoke', async (t) => {
    if (!browser) return t.skip(skip)
    const page = await signInBrowser(server, browser, tenantId, 'viewer@lrs.test', 'viewer')
    await navLink(page, 'LRS').click()
    await page.getByText('Only an owner can create or revoke credentials.').waitFor()
    await page.getByRole('cell', { name: 'Ladder course', exact: true }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Create credential' }).count(), 0)
    assert.equal(await page.getByRole('button', { name: /^Revoke/ }).count(), 0)
  })
})
