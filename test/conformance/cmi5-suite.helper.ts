import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { cachedSuiteCopy, runCommand } from './suite-install.helper.ts'

/** The cmi5 LMS Test Suite (CATAPULT `lts/`), kept unchanged outside the project. */
export const LTS_SOURCE =
  process.env.CMI5_LTS_SUITE ??
  resolve(import.meta.dirname, '../../../shared/conformance/cmi5-lts/lts')
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const ADAPTER = resolve(import.meta.dirname, 'cmi5-lms-adapter.cjs')

/**
 * A copy of the suite with its packages installed (no browser download: Debian's Chromium is
 * used) and its test packages built (minutes the first time, then cached).
 */
export function installedLts(): Promise<{ dir: string } | { skip: string }> {
  if (!existsSync(CHROMIUM)) return Promise.resolve({ skip: `no Chromium at ${CHROMIUM}` })
  return cachedSuiteCopy({
    source: LTS_SOURCE,
    keyFile: 'package-lock.json',
    cacheName: 'courseport-cmi5-lts',
    prepare: async (staging) => {
      const env = { PUPPETEER_SKIP_CHROMIUM_DOWNLOAD: '1', PUPPETEER_SKIP_DOWNLOAD: '1' }
      const install = await runCommand('npm', ['ci', '--no-audit', '--no-fund'], {
        cwd: staging,
        env,
        timeoutMs: 900_000,
      })
      if (install.code !== 0)
        return `npm ci failed (${install.code}): ${install.output.slice(-400)}`
      // webpack 5.45 hashes with MD4, which OpenSSL 3 only offers through the legacy provider.
      const build = await runCommand('npx', ['webpack'], {
        cwd: join(staging, 'pkg'),
        env: { NODE_OPTIONS: '--openssl-legacy-provider' },
        timeoutMs: 600_000,
      })
      if (build.code !== 0) return `building the test packages failed: ${build.output.slice(-400)}`
      writeFileSync(
        join(staging, 'jest-puppeteer.local.js'),
        `module.exports = ${JSON.stringify({
          launch: {
            headless: true,
            executablePath: CHROMIUM,
            args: ['--no-sandbox', '--disable-dev-shm-usage'],
          },
        })}\n`,
      )
      return undefined
    },
  })
}

export interface LtsResult {
  total: number
  passed: number
  failed: number
  skipped: number
  /** Full names of the failing tests. */
  failures: string[]
  output: string
}

interface JestReport {
  numTotalTests: number
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  testResults: Array<{
    message: string
    assertionResults: Array<{ fullName: string; status: string; failureMessages?: string[] }>
  }>
}

/** Runs the whole suite through Courseport's adapter, with `env` telling it where to go. */
export async function runLts(dir: string, env: Record<string, string>): Promise<LtsResult> {
  const report = join(mkdtempSync(join(tmpdir(), 'courseport-cmi5-lts-report-')), 'report.json')
  try {
    // Jest's own per-test limit is 5 s, which an AU run in Chromium exceeds on a busy machine
    // (CI runs two test files at once on two cores); the suite's waits are Puppeteer's (30 s).
    const args = ['jest', '--json', `--outputFile=${report}`, '--testTimeout=120000']
    const { output } = await runCommand('npx', args, {
      cwd: dir,
      env: {
        ...env,
        CATAPULT_LMS: ADAPTER,
        JEST_PUPPETEER_CONFIG: './jest-puppeteer.local.js',
      },
      timeoutMs: 1_200_000,
    })
    if (!existsSync(report)) throw new Error(`jest wrote no report:\n${output.slice(-3000)}`)
    const r = JSON.parse(readFileSync(report, 'utf8')) as JestReport
    const failures = r.testResults.flatMap((file) => [
      ...file.assertionResults
        .filter((a) => a.status === 'failed')
        .map((a) => `${a.fullName}: ${(a.failureMessages?.[0] ?? '').slice(0, 300)}`),
      // A suite that fails to run (setup, syntax) has no assertions, only a message.
      ...(file.assertionResults.length === 0 && file.message ? [file.message.slice(0, 500)] : []),
    ])
    return {
      total: r.numTotalTests,
      passed: r.numPassedTests,
      failed: r.numFailedTests,
      skipped: r.numPendingTests,
      failures,
      output,
    }
  } finally {
    rmSync(join(report, '..'), { recursive: true, force: true })
  }
}
