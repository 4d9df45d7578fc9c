/**
 * Headless Chromium for end-to-end tests, through playwright-core and the system's
 * /usr/bin/chromium (no browser download). Each launch gets a fresh temporary profile, removed on
 * close. Without Chromium the tests are skipped with a printed reason — except on CI (CI=true),
 * where a missing browser is an error, so a broken CI image cannot pass silently.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'

export const CHROMIUM_PATH = '/usr/bin/chromium'

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export interface TestBrowser {
  readonly context: BrowserContext
  /** The profile's first tab, or a new one. */
  page(): Promise<Page>
  /** Closes Chromium and removes the temporary profile. */
  close(): Promise<void>
}

export type LaunchResult = TestBrowser | { readonly skip: string }

export interface LaunchOptions {
  /** Default 390×844, a phone. */
  readonly viewport?: { width: number; height: number }
  /** Default /usr/bin/chromium. */
  readonly executablePath?: string
  /**
   * Turns on the profile's "Block third-party cookies" setting (chrome://settings/cookies), so a
   * test does not depend on the browser's default for it (Debian's Chromium 156, headless, already
   * blocks them). Default false: the profile keeps the browser's default.
   */
  readonly blockThirdPartyCookies?: boolean
}

export async function launchBrowser(options: LaunchOptions = {}): Promise<LaunchResult> {
  const executablePath = options.executablePath ?? CHROMIUM_PATH
  if (!existsSync(executablePath)) {
    const missing = `${executablePath} is missing (install the chromium package)`
    if (process.env.CI === 'true') throw new Error(`${missing}; CI=true requires browser tests`)
    const reason = `${missing}; browser tests skipped`
    process.stderr.write(`# ${reason}\n`)
    return { skip: reason }
  }
  const profile = mkdtempSync(join(tmpdir(), 'cp-chromium-'))
  if (options.blockThirdPartyCookies) {
    // cookie_controls_mode 1 = "Block third-party cookies" in the settings page.
    mkdirSync(join(profile, 'Default'))
    writeFileSync(
      join(profile, 'Default', 'Preferences'),
      JSON.stringify({ profile: { cookie_controls_mode: 1, block_third_party_cookies: true } }),
    )
  }
  let context: BrowserContext
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      args: CHROMIUM_ARGS,
      headless: true,
      viewport: options.viewport ?? { width: 390, height: 844 },
      timeout: 60_000,
    })
  } catch (err) {
    rmSync(profile, { recursive: true, force: true })
    throw err
  }
  return {
    context,
    async page() {
      return context.pages()[0] ?? (await context.newPage())
    },
    async close() {
      try {
        await context.close()
      } finally {
        rmSync(profile, { recursive: true, force: true })
      }
    },
  }
}

export function isSkip(result: LaunchResult): result is { readonly skip: string } {
  return 'skip' in result
}
