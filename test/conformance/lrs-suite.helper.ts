import { readFileSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { cachedSuiteCopy, runCommand } from './suite-install.helper.ts'

/** The ADL suite, kept unchanged outside the project (never copied into it). */
export const SUITE_SOURCE =
  process.env.LRS_CONFORMANCE_SUITE ??
  resolve(import.meta.dirname, '../../../shared/conformance/lrs-conformance-test-suite')

/** A copy of the suite with its packages installed (~35 s the first time, then cached). */
export function installedSuite(): Promise<{ dir: string } | { skip: string }> {
  return cachedSuiteCopy({
    source: SUITE_SOURCE,
    keyFile: 'package.json',
    cacheName: 'courseport-lrs-suite',
    prepare: async (staging) => {
      const install = await runCommand('npm', ['install', '--no-audit', '--no-fund'], {
        cwd: staging,
        timeoutMs: 300_000,
      })
      if (install.code !== 0)
        return `npm install failed (${install.code}): ${install.output.slice(-400)}`
      return undefined
    },
  })
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
  const { output } = await runCommand(process.execPath, [...args, '-x', version, '-z'], {
    cwd: dir,
    timeoutMs: 900_000,
  })
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
