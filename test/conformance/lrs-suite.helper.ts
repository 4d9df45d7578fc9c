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

/** The ADL suite, kept unchanged outside the project (never copied into it). */
export const SUITE_SOURCE =
  process.env.LRS_CONFORMANCE_SUITE ??
  resolve(import.meta.dirname, '../../../shared/conformance/lrs-conformance-test-suite')

function run(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
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
 * A copy of the suite with its packages installed, cached under os.tmpdir() by the hash of its
 * package.json (installing takes ~35 s). Returns the directory, or why it cannot be had.
 */
export async function installedSuite(): Promise<{ dir: string } | { skip: string }> {
  const manifest = join(SUITE_SOURCE, 'package.json')
  if (!existsSync(manifest)) return { skip: `no suite at ${SUITE_SOURCE}` }
  const hash = createHash('sha256').update(readFileSync(manifest)).digest('hex').slice(0, 16)
  const dir = join(tmpdir(), `courseport-lrs-suite-${hash}`)
  if (existsSync(join(dir, '.installed'))) return { dir }
  const staging = mkdtempSync(join(tmpdir(), 'courseport-lrs-suite-staging-'))
  try {
    cpSync(SUITE_SOURCE, staging, {
      recursive: true,
      filter: (src) => !src.includes(`${SUITE_SOURCE}/node_modules`),
    })
    const install = await run('npm', ['install', '--no-audit', '--no-fund'], staging, 300_000)
    if (install.code !== 0) {
      return { skip: `npm install failed (${install.code}): ${install.output.slice(-400)}` }
    }
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

export interface SuiteResult {
  total: number
  passed: number
  failed: number
  /** "requirement ids > test title" of each failing test. */
  failures: string[]
  output: string
}

interface LogNode {
  title?: string
  requirement?: string | string[]
  status?: string
  tests?: LogNode[]
}

function failuresOf(node: LogNode, path: string[], out: string[]): void {
  const here = node.requirement ? [...path, String(node.requirement)] : path
  if (!node.tests?.length) {
    if (node.status === 'failed') out.push(`${here.slice(-2).join(' > ')} :: ${node.title ?? ''}`)
    return
  }
  for (const child of node.tests) failuresOf(child, here, out)
}

/** Runs the suite for one xAPI version against an endpoint and reads the summary of its log. */
export async function runSuite(
  dir: string,
  lrs: { endpoint: string; key: string; secret: string },
  version: '1.0.3' | '2.0.0',
): Promise<SuiteResult> {
  const args = ['bin/console_runner.js', '-e', lrs.endpoint, '-a', '-u', lrs.key, '-p', lrs.secret]
  const { output } = await run(process.execPath, [...args, '-x', version, '-z'], dir, 900_000)
  // The exit code is the failure count modulo 256: the log's summary is the truth.
  const logPath = /Full run log written to (\S+\.log)/.exec(output)?.[1]
  if (!logPath) throw new Error(`the suite wrote no log:\n${output.slice(-2000)}`)
  const log = JSON.parse(readFileSync(logPath, 'utf8')) as {
    summary: { total: number; passed: number; failed: number }
    log?: LogNode
  }
  const failures: string[] = []
  if (log.log) failuresOf(log.log, [], failures)
  rmSync(logPath, { force: true })
  return { ...log.summary, failures, output }
}
