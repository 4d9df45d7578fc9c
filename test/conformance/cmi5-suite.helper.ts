import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** The cmi5 LMS Test Suite (CATAPULT `lts/`), kept unchanged outside the project. */
export const LTS_SOURCE =
  process.env.CMI5_LTS_SUITE ??
  resolve(import.meta.dirname, '../../../shared/conformance/cmi5-lts/lts')
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const ADAPTER = resolve(import.meta.dirname, 'cmi5-lms-adapter.cjs')

function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs: number },
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-200_000)
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
    child.on('error', (err) => {
      clearTimeout(timer)
      done({ code: null, output: `${output}\n${err.message}` })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      done({ code, output })
    })
  })
}

/**
 * A copy of the suite with its packages installed (no browser download: Debian's Chromium is
 * used) and its test packages built, cached under os.tmpdir() by the hash of its package-lock
 * (installing takes minutes). Returns the directory, or why it cannot be had.
 */
export async function installedLts(): Promise<{ dir: string } | { skip: string }> {
  const lock = join(LTS_SOURCE, 'package-lock.json')
  if (!existsSync(lock)) return { skip: `no cmi5 LMS Test Suite at ${LTS_SOURCE}` }
  if (!existsSync(CHROMIUM)) return { skip: `no Chromium at ${CHROMIUM}` }
  const hash = createHash('sha256').update(readFileSync(lock)).digest('hex').slice(0, 16)
  const dir = join(tmpdir(), `courseport-cmi5-lts-${hash}`)
  if (existsSync(join(dir, '.installed'))) return { dir }
  const staging = mkdtempSync(join(tmpdir(), 'courseport-cmi5-lts-staging-'))
  try {
    cpSync(LTS_SOURCE, staging, {
      recursive: true,
      filter: (src) => !src.includes(`${LTS_SOURCE}/node_modules`),
    })
    const env = { PUPPETEER_SKIP_CHROMIUM_DOWNLOAD: '1', PUPPETEER_SKIP_DOWNLOAD: '1' }
    const install = await run('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: staging,
      env,
      timeoutMs: 900_000,
    })
    if (install.code !== 0) {
      return { skip: `npm ci failed (${install.code}): ${install.output.slice(-400)}` }
    }
    // webpack 5.45 hashes with MD4, which OpenSSL 3 only offers through the legacy provider.
    const build = await run('npx', ['webpack'], {
      cwd: join(staging, 'pkg'),
      env: { NODE_OPTIONS: '--openssl-legacy-provider' },
      timeoutMs: 600_000,
    })
    if (build.code !== 0) {
      return { skip: `building the test packages failed: ${build.output.slice(-400)}` }
    }
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
    writeFileSync(join(staging, '.installed'), new Date().toISOString())
    // Another run may have finished installing meanwhile: keep its copy, which may be in use.
    if (existsSync(join(dir, '.installed'))) return { dir }
    rmSync(dir, { recursive: true, force: true })
    renameSync(staging, dir)
    return { dir }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
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
    const { output } = await run('npx', args, {
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
