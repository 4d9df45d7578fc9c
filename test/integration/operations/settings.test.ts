import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { loadConfig } from '../../../src/config.ts'
import { ConfigError } from '../../../src/config-variables.ts'
import { freePort, startCourseport } from '../../helpers/server-process.ts'

const run = promisify(execFile)
const CLI = join(import.meta.dirname, '../../../src/main/cli.ts')
const SECRET = 'settings-test-secret-0123456789abcdef'

/** Runs the CLI to completion; resolves with its exit code and output whatever the code. */
async function cli(args: string[], env: Record<string, string>, timeout = 30_000) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout,
    })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string }
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

describe('boolean settings', () => {
  const base = { SECRET_KEY: SECRET, DATA_DIR: tmpdir() }
  for (const [raw, expected] of [
    ['1', true],
    ['true', true],
    ['TRUE', true],
    ['yes', true],
    ['On', true],
    ['0', false],
    ['false', false],
    ['No', false],
    ['off', false],
    ['', false],
  ] as const) {
    test(`S3_FORCE_PATH_STYLE=${JSON.stringify(raw)} and TRUST_PROXY=${JSON.stringify(raw)} read as ${expected}`, () => {
      const config = loadConfig({ ...base, S3_FORCE_PATH_STYLE: raw, TRUST_PROXY: raw })
      assert.equal(config.s3.forcePathStyle, expected)
      assert.equal(config.trustProxy, expected)
    })
  }
  test('anything else is refused by name', () => {
    for (const name of ['S3_FORCE_PATH_STYLE', 'TRUST_PROXY']) {
      assert.throws(
        () => loadConfig({ ...base, [name]: 'ja' }),
        (err: unknown) => err instanceof ConfigError && err.variable === name,
      )
    }
  })
  test('database and worker settings have documented defaults and are validated', () => {
    const config = loadConfig(base)
    assert.deepEqual(config.database, {
      poolSize: 10,
      connectTimeoutMs: 5000,
      startupWaitSeconds: 60,
    })
    assert.equal(config.worker.leaseSeconds, 30)
    assert.equal(config.worker.healthPort, undefined)
    assert.equal(config.worker.healthHost, '127.0.0.1')
    assert.equal(config.shutdownDrainDelayMs, 3000)
    assert.throws(() => loadConfig({ ...base, DATABASE_POOL_SIZE: '0' }), /DATABASE_POOL_SIZE/)
    assert.throws(() => loadConfig({ ...base, JOB_LEASE_SECONDS: '1' }), /JOB_LEASE_SECONDS/)
  })
})

describe('start-up refuses what would fail silently', () => {
  let dataDir = ''
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cp-settings-'))
  })
  after(() => rmSync(dataDir, { recursive: true, force: true }))

  test('a multi-process deployment without SECRET_KEY stops with a message saying what to set', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['serve'], { DATABASE_URL: 'postgres://cp@127.0.0.1:1/cp' }, /PostgreSQL/],
      [['serve'], { STORAGE_URL: 's3://bucket/prefix' }, /S3/],
      [['serve', '--no-worker'], {}, /serve --no-worker/],
      [['worker'], {}, /worker/],
    ]
    for (const [args, env, reason] of cases) {
      const result = await cli(args, { DATA_DIR: dataDir, ...env })
      assert.equal(result.code, 1, `${args.join(' ')}: ${result.stdout}${result.stderr}`)
      assert.match(result.stderr, /^Configuration error: SECRET_KEY: must be set/)
      assert.match(result.stderr, reason)
      assert.match(result.stderr, /openssl rand -hex 32/)
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace')
    }
  })

  test('an unreachable DATABASE_URL is retried for DATABASE_STARTUP_WAIT_SECONDS, then one line naming it without the password', async () => {
    const port = await freePort() // nothing listens there
    const started = Date.now()
    const result = await cli(['migrate'], {
      DATA_DIR: dataDir,
      DATABASE_URL: `postgres://courseport:hunter2secret@127.0.0.1:${port}/courseport`,
      DATABASE_STARTUP_WAIT_SECONDS: '2',
    })
    const elapsed = Date.now() - started
    assert.equal(result.code, 1)
    assert.ok(elapsed >= 1500, `gave up after ${elapsed} ms instead of retrying`)
    const lines = result.stderr.trim().split('\n')
    const last = lines.at(-1) ?? ''
    assert.match(
      last,
      new RegExp(
        `^DATABASE_URL: cannot connect to postgres://courseport@127\\.0\\.0\\.1:${port}/courseport after \\d+ s \\(connect ECONNREFUSED`,
      ),
    )
    assert.match(lines[0] ?? '', /waiting for the database/)
    assert.doesNotMatch(result.stderr, /hunter2secret/)
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace')
  })

  test('the zero-setup default (SQLite, local disk, serve) still starts without SECRET_KEY', async () => {
    const port = await freePort()
    const server = await startCourseport(['serve'], {
      DATA_DIR: dataDir,
      PORT: String(port),
      CONTENT_PORT: String(await freePort()),
    })
    try {
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200)
    } finally {
      assert.equal(await server.stop('SIGINT'), 0)
    }
  })
})
