/**
 * What the dashboard's browser tests share: the real server (API + content origins) on a test
 * database, whose webhook sender trusts the test CA and may reach 127.0.0.1; dashboard users;
 * signing in; and the accessibility check (axe-core: no serious or critical violation) with an
 * optional screenshot into DASHBOARD_SCREENSHOTS.
 */
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AxeBuilder } from '@axe-core/playwright'
import type { Page } from 'playwright-core'
import { type App, buildApp, buildContentApp } from '../../../src/app.ts'
import { loadConfig } from '../../../src/config.ts'
import type { AppContext } from '../../../src/context.ts'
import { Worker } from '../../../src/infra/queue/index.ts'
import { taskRegistry } from '../../../src/jobs/registry.ts'
import { createContext } from '../../../src/main/context.ts'
import { AccountService } from '../../../src/modules/accounts/account.service.ts'
import type { TestDatabase } from '../../helpers/database.ts'
import { TEST_CA } from '../../unit/http-egress/tls-receiver.ts'
import { freePorts } from '../helpers/live-server.ts'

export const SHOTS = process.env.DASHBOARD_SCREENSHOTS

export interface DashboardServer {
  apiUrl: string
  contentUrl: string
  app: App
  ctx: AppContext
  createTenant(): Promise<{ tenantId: string; testKey: string; liveKey: string }>
  /** A dashboard user who has accepted an invite (so they can sign in with `password`). */
  createUser(
    tenantId: string,
    email: string,
    role: 'owner' | 'admin' | 'viewer',
    password: string,
  ): Promise<void>
  /** One pass of fan-out and due jobs (webhook sends), as the worker process would. */
  runJobs(): Promise<void>
  close(): Promise<void>
}

export async function startDashboardServer(database: TestDatabase): Promise<DashboardServer> {
  const [apiPort, contentPort] = await freePorts(2)
  const apiUrl = `http://127.0.0.1:${apiPort}`
  const contentUrl = `http://127.0.0.1:${contentPort}`
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-dashboard-'))
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    SECRET_KEY: 'test-secret-key-test-secret-key-0123456789',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: apiUrl,
    CONTENT_URL: contentUrl,
    CONTENT_ORIGINS: 'single',
    RATE_LIMIT_PER_MINUTE: '100000',
  })
  const ctx = await createContext(config, {
    db: database.db,
    webhooks: { ca: TEST_CA, allowAddresses: ['127.0.0.1'] },
  })
  const app = await buildApp(ctx)
  const content = await buildContentApp(ctx)
  await app.listen({ host: '127.0.0.1', port: apiPort })
  await content.listen({ host: '127.0.0.1', port: contentPort })
  const accounts = new AccountService({ db: ctx.db.kysely, clock: ctx.clock })
  return {
    apiUrl,
    contentUrl,
    app,
    ctx,
    async createTenant() {
      const t = await ctx.services.tenants.createTenant({ name: 'Dashboard tenant' })
      return { tenantId: t.tenantId, testKey: t.testKey.key, liveKey: t.liveKey.key }
    },
    async createUser(tenantId, email, role, password) {
      const invite = await accounts.createInvite(tenantId, { email, role }, null)
      await accounts.acceptInvite(invite.token, password)
    },
    async runJobs() {
      await ctx.services.webhooks.deliveries.fanOut()
      await new Worker(ctx.db, taskRegistry(ctx), {
        clock: ctx.clock,
        concurrency: 2,
        logger: { info() {}, warn() {}, error() {} },
      }).runOnce()
    },
    async close() {
      await app.close()
      await content.close()
      await ctx.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Signs in through the form; lands on the page the URL fragment names (default overview). */
export async function signIn(page: Page, apiUrl: string, email: string, password: string) {
  await page.goto(`${apiUrl}/dashboard/`)
  await page.getByRole('heading', { name: 'Sign in to Courseport' }).waitFor()
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
}

/** A link of the dashboard's navigation (pages repeat some names in their content). */
export function nav(page: Page, name: string) {
  return page.getByRole('navigation').getByRole('link', { name, exact: true })
}

/** Signs in unless this browser already is (tests of a file share one browser). */
export async function ensureSignedIn(page: Page, apiUrl: string, email: string, password: string) {
  if (!page.url().startsWith(`${apiUrl}/dashboard/`)) await page.goto(`${apiUrl}/dashboard/`)
  const out = page.getByRole('heading', { name: 'Sign in to Courseport' })
  const signedIn = page.getByRole('button', { name: 'Sign out' })
  await out.or(signedIn).first().waitFor()
  if (await out.isVisible()) await signIn(page, apiUrl, email, password)
}

/** Opens a page from the navigation, through the menu button at phone width. */
export async function goTo(page: Page, name: string): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu', exact: true })
  if (await menu.isVisible()) await menu.click()
  await nav(page, name).click()
}

/** Waits until no "Loading…" is left on the page. */
export async function settled(page: Page): Promise<void> {
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' })
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // axe is injected through CDP evaluation, which the page's CSP rightly does not cover.
  const result = await new AxeBuilder({ page }).analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

/** No serious/critical axe violation; a screenshot when DASHBOARD_SCREENSHOTS is set. */
export async function check(page: Page, name: string): Promise<void> {
  await settled(page)
  assert.deepEqual(await seriousViolations(page), [], `axe on ${name}`)
  // Nothing may overflow sideways at phone width: the page scrolls only vertically.
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  )
  assert.ok(overflow <= 1, `${name} overflows horizontally by ${overflow}px`)
  if (SHOTS) {
    mkdirSync(SHOTS, { recursive: true })
    const size = page.viewportSize()
    await page.screenshot({ path: join(SHOTS, `${name}-${size?.width}.png`), fullPage: true })
  }
}

export async function atWidths(page: Page, name: string, widths = [1280, 390]): Promise<void> {
  for (const width of widths) {
    await page.setViewportSize({ width, height: width > 500 ? 800 : 844 })
    await check(page, name)
  }
  await page.setViewportSize({ width: 1280, height: 800 })
}
