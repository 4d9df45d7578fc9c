import assert from 'node:assert/strict'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'
import { DATABASE_TARGETS, POSTGRES_ADMIN_URL } from '../../helpers/database.ts'
import { freePort } from '../../helpers/server-process.ts'

const run = promisify(execFile)
const CLI = join(import.meta.dirname, '../../../bin/courseport')

let dataDir: string
let env: Record<string, string | undefined>
before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cp-cli-'))
  env = {
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DATABASE_URL: undefined,
    SECRET_KEY: undefined,
  }
})
after(() => rmSync(dataDir, { recursive: true, force: true }))

async function cli(...args: string[]) {
  const { stdout } = await run(CLI, args, { env })
  return stdout
}

test('tenant create --json prints the tenant id and both keys; keys can be added and revoked', async () => {
  const created = JSON.parse(
    await cli('tenant', 'create', '--name', 'Acme', '--plan', 'growth', '--json'),
  )
  assert.match(created.tenant_id, /^ten_/)
  assert.match(created.test_key, /^cp_test_[0-9A-Za-z]{43}$/)
  assert.match(created.live_key, /^cp_live_[0-9A-Za-z]{43}$/)
  const key = JSON.parse(
    await cli('key', 'create', '--tenant', created.tenant_id, '--mode', 'live', '--json'),
  )
  assert.match(key.key, /^cp_live_/)
  assert.match(await cli('key', 'revoke', key.key_id), /revoked/)
  await assert.rejects(cli('key', 'revoke', key.key_id), /No active key/)
  await assert.rejects(cli('tenant', 'create', '--name', 'X', '--plan', 'platinum'), /Unknown plan/)
})

test('bad configuration stops start-up with a message naming the variable', async () => {
  await assert.rejects(
    run(CLI, ['serve'], { env: { ...env, PORT: 'eighty' } }),
    (err: { stderr: string; code: number }) => err.code === 1 && /PORT/.test(err.stderr),
  )
})

// Generous: a first start on PostgreSQL runs every migration, which takes seconds on a busy machine.
async function waitFor(url: string, deadline = Date.now() + 90_000): Promise<Response> {
  for (;;) {
    try {
      return await fetch(url)
    } catch (err) {
      if (Date.now() > deadline) throw err
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

async function serve(serveEnv: Record<string, string | undefined>) {
  const port = await freePort()
  const contentPort = await freePort()
  const child: ChildProcess = spawn(CLI, ['serve'], {
    env: { ...serveEnv, PORT: String(port), CONTENT_PORT: String(contentPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  await waitFor(`http://127.0.0.1:${port}/healthz`)
  return { port, contentPort, child, exited, output: () => stdout }
}

for (const target of DATABASE_TARGETS) {
  test(`serve on ${target.dialect}: first start prints a development tenant's keys once; SIGTERM exits cleanly`, {
    skip: target.skip,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-serve-'))
    let dbName: string | undefined
    const serveEnv: Record<string, string | undefined> = { ...env, DATA_DIR: dir }
    if (target.dialect === 'postgres') {
      const pg = (await import('pg')).default
      dbName = `cp_cli_${Date.now()}`
      const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
      await admin.connect()
      await admin.query(`create database ${dbName}`)
      await admin.end()
      const url = new URL(POSTGRES_ADMIN_URL)
      url.pathname = `/${dbName}`
      serveEnv.DATABASE_URL = url.toString()
      // Required with PostgreSQL: several processes must verify each other's tokens.
      serveEnv.SECRET_KEY = 'cli-test-secret-key-0123456789abcdefgh'
    }
    try {
      const first = await serve(serveEnv)
      const ready = await fetch(`http://127.0.0.1:${first.contentPort}/readyz`)
      assert.equal(ready.status, 200)
      const key = /test key: (cp_test_\S+)/.exec(first.output())?.[1]
      assert.ok(key, first.output())
      const list = await fetch(`http://127.0.0.1:${first.port}/api/v1/packages`, {
        headers: { authorization: `Bearer ${key}` },
      })
      assert.equal(list.status, 200)
      first.child.kill('SIGTERM')
      assert.equal(await first.exited, 0)

      const second = await serve(serveEnv)
      second.child.kill('SIGTERM')
      assert.equal(await second.exited, 0)
      assert.doesNotMatch(second.output(), /test key/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
      if (dbName) {
        const pg = (await import('pg')).default
        const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
        await admin.connect()
        await admin.query(`drop database if exists ${dbName} with (force)`)
        await admin.end()
      }
    }
  })
}
