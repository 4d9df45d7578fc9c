import assert from 'node:assert/strict'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'
import { freePort } from '../../helpers/server-process.ts'

const run = promisify(execFile)
const CLI = join(import.meta.dirname, '../../../bin/courseport')

let dataDir: string
let env: Record<string, string | undefined>
before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cp-backup-'))
  env = {
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    SHUTDOWN_DRAIN_DELAY_MS: '0',
  }
})
after(() => rmSync(dataDir, { recursive: true, force: true }))

async function serve(): Promise<{ url: string; child: ChildProcess; key: string }> {
  const port = await freePort()
  const child = spawn(CLI, ['serve'], {
    env: { ...env, PORT: String(port), CONTENT_PORT: String(await freePort()) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let stdout = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) break
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve: ${stdout}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const key = /test key: (cp_test_\S+)/.exec(stdout)?.[1]
  assert.ok(key, stdout)
  return { url, child, key }
}

test('backup while a server writes: the copy opens, passes integrity_check and holds every row committed before it started', async () => {
  // Bulk first, so the copy takes a while (many backup steps) while the server keeps writing.
  await run(CLI, ['migrate'], { env })
  const seed = new DatabaseSync(join(dataDir, 'courseport.db'))
  seed.exec('CREATE TABLE backup_test_filler (id INTEGER PRIMARY KEY, data BLOB)')
  seed.exec(
    'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) ' +
      'INSERT INTO backup_test_filler (data) SELECT randomblob(1500) FROM n',
  )
  seed.close()

  const server = await serve()
  const acked: string[] = []
  const failures: string[] = []
  let stop = false
  let next = 0
  // Each acknowledged request is one committed row (an upload intent named by its filename).
  const writer = async () => {
    while (!stop) {
      const filename = `w-${next++}.zip`
      const res = await fetch(`${server.url}/api/v1/packages/upload-url`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ filename, file_size: 1000 }),
      })
      if (res.ok) acked.push(filename)
      else failures.push(`${res.status} ${await res.text()}`)
    }
  }
  const writers = Array.from({ length: 4 }, writer)
  try {
    while (acked.length < 50) await new Promise((r) => setTimeout(r, 20))
    const committedBefore = [...acked]
    const file = join(dataDir, 'backups', 'copy.db')
    mkdirSync(join(dataDir, 'backups'))
    const backedUp = await run(CLI, ['backup', file, '--json'], { env })
    const writtenDuring = acked.length - committedBefore.length
    stop = true
    await Promise.all(writers)
    assert.deepEqual(failures, [], 'the server answered every write during the backup')
    assert.ok(writtenDuring > 0, 'the server wrote while the backup ran')
    const result = JSON.parse(backedUp.stdout)
    assert.equal(result.file, file)
    assert.ok(result.pages > 10_000, `pages ${result.pages}`)

    assert.ok(!existsSync(`${file}-wal`), 'one self-contained file')
    const copy = new DatabaseSync(file, { readOnly: true })
    try {
      assert.deepEqual(
        copy
          .prepare('PRAGMA integrity_check')
          .all()
          .map((r) => ({ ...r })),
        [{ integrity_check: 'ok' }],
      )
      assert.equal(copy.prepare('SELECT count(*) AS n FROM backup_test_filler').get()?.n, 40_000)
      const names = new Set(
        copy
          .prepare("SELECT filename FROM upload_intents WHERE filename LIKE 'w-%'")
          .all()
          .map((r) => String(r.filename)),
      )
      const missing = committedBefore.filter((name) => !names.has(name))
      assert.deepEqual(missing, [], 'every row committed before the backup started is in it')
      assert.ok(names.size <= next, 'nothing the server was never asked to write')
      // The restored file works as a database: the server's migrations see it as up to date.
      assert.ok(Number(copy.prepare('SELECT count(*) AS n FROM kysely_migration').get()?.n) > 0)
    } finally {
      copy.close()
    }
  } finally {
    stop = true
    await Promise.allSettled(writers)
    server.child.kill('SIGTERM')
    await new Promise((r) => server.child.once('exit', r))
  }
})

test('backup refuses PostgreSQL with a pointer to pg_dump, and a missing database', async () => {
  await assert.rejects(
    run(CLI, ['backup', join(dataDir, 'pg.db')], {
      env: { ...env, DATABASE_URL: 'postgres://admin:hunter2@db.invalid:5432/courseport' },
    }),
    (err: { code: number; stderr: string }) =>
      err.code === 1 && /pg_dump/.test(err.stderr) && !/hunter2/.test(err.stderr),
  )
  await assert.rejects(
    run(CLI, ['backup', join(dataDir, 'none.db')], {
      env: { ...env, DATABASE_URL: `sqlite:${join(dataDir, 'absent', 'x.db')}` },
    }),
    (err: { code: number; stderr: string }) =>
      err.code === 1 && /no SQLite database/.test(err.stderr),
  )
  assert.ok(!existsSync(join(dataDir, 'absent', 'x.db')), 'no empty database was created')
})
