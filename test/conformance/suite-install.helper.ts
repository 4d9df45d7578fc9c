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
import { join } from 'node:path'

/**
 * Runs a command to its end (or kills it at `timeoutMs`), keeping the last 200 000 characters of
 * its stdout and stderr together; `code` is null when it could not start or was killed.
 */
export function runCommand(
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
 * A ready copy of an official suite kept outside the project (never copied into it): copied
 * without its node_modules into a staging folder, set up there by `prepare` (install, build;
 * it returns why it could not, or nothing), then renamed into place. Cached under os.tmpdir() as
 * `<cacheName>-<hash of keyFile>`, so later runs and other test processes reuse it; a copy that
 * another process finished first wins, since it may be in use.
 */
export async function cachedSuiteCopy(suite: {
  source: string
  /** The file whose content names the installation, e.g. the lock file. */
  keyFile: string
  cacheName: string
  prepare: (staging: string) => Promise<string | undefined>
}): Promise<{ dir: string } | { skip: string }> {
  const key = join(suite.source, suite.keyFile)
  if (!existsSync(key)) return { skip: `no suite at ${suite.source}` }
  const hash = createHash('sha256').update(readFileSync(key)).digest('hex').slice(0, 16)
  const dir = join(tmpdir(), `${suite.cacheName}-${hash}`)
  if (existsSync(join(dir, '.installed'))) return { dir }
  const staging = mkdtempSync(join(tmpdir(), `${suite.cacheName}-staging-`))
  try {
    cpSync(suite.source, staging, {
      recursive: true,
      filter: (src) => !src.includes(`${suite.source}/node_modules`),
    })
    const failed = await suite.prepare(staging)
    if (failed) return { skip: failed }
    writeFileSync(join(staging, '.installed'), new Date().toISOString())
    if (existsSync(join(dir, '.installed'))) return { dir }
    rmSync(dir, { recursive: true, force: true })
    renameSync(staging, dir)
    return { dir }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}
