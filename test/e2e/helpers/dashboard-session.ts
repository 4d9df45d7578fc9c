/**
 * What the per-page dashboard browser tests share: a signed-in browser (the session cookie of a
 * user who accepted their invite over HTTP), axe-core's serious and critical findings, and
 * screenshots at desktop and phone width into DASHBOARD_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import type { Page } from 'playwright-core'
import type { DashboardRole } from '../../../src/infra/db/tables/accounts.ts'
import { AccountService } from '../../../src/modules/accounts/account.service.ts'
import type { TestBrowser } from './browser.ts'
import type { LiveServer } from './live-server.ts'

const SHOTS = process.env.DASHBOARD_SCREENSHOTS

/** A dashboard user of `tenantId` signed in in `browser` (the cookie set as sign-in sets it). */
export async function signInBrowser(
  server: LiveServer,
  browser: TestBrowser,
  tenantId: string,
  email: string,
  role: DashboardRole = 'owner',
): Promise<Page> {
  const { ctx } = server.t
  const accounts = new AccountService({ db: ctx.db.kysely, clock: ctx.clock })
  const invite = await accounts.createInvite(tenantId, { email, role }, null)
  const page = await browser.page()
  await page.goto(`${server.apiUrl}/dashboard/#invite=${invite.token}`)
  await page.getByLabel('New password').fill('dashboard page password')
  await page.getByRole('button', { name: 'Set password and sign in' }).click()
  await page.getByRole('heading', { name: 'Overview' }).waitFor()
  return page
}

/** A link of the dashboard's top navigation. */
export function navLink(page: Page, name: string) {
  return page.getByRole('navigation').getByRole('link', { name, exact: true })
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

/**
 * No serious or critical axe finding, at 1280 and at 390 pixels wide, with a screenshot of each
 * (`{name}-1280.png`, `{name}-390.png`) when DASHBOARD_SCREENSHOTS names a directory. The page
 * is left at 1280.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 })
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true })
      await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true })
    }
    assert.deepEqual(await seriousViolations(page), [], `axe on ${name} at ${width}px`)
    const overflow = await page.evaluate(() => {
      const width = document.documentElement.clientWidth
      // Names a suspect for the failure: the first child whose hiding ends the sideways scroll,
      // descended into (hiding reflows the rest, so it can point at a neighbour of the cause).
      const over = () => document.documentElement.scrollWidth - width > 1
      const path: string[] = []
      let node: Element = document.body
      while (over()) {
        const culprit = [...node.children].find((child) => {
          const el = child as HTMLElement
          const before = el.style.display
          el.style.display = 'none'
          const fixed = !over()
          el.style.display = before
          return fixed
        })
        if (!culprit) break
        path.push(`${culprit.tagName.toLowerCase()}.${culprit.className}`)
        node = culprit
      }
      return { by: document.documentElement.scrollWidth - width, suspect: path.join(' > ') }
    })
    assert.ok(
      overflow.by <= 1,
      `${name} at ${width}px scrolls sideways by ${overflow.by}px: ${overflow.suspect}`,
    )
  }
  await page.setViewportSize({ width: 1280, height: 900 })
}
