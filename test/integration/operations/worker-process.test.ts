import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { promisify } from 'node:util'
import { sql } from 'kysely'
import { createQueue } from '../../../src/infra/queue/index.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { freePort, startCourseport } from '../../helpers/server-process.ts'

const run = promisify(execFile)
const CLI = join(import.meta.dirname, '../../../src/main/cli.ts')
const SECRET = 'worker-process-test-secret-0123456789abcdef'

describeEachDatabase('operating workers', (database) => {
  let dataDir = ''
  let env: Record<string, string> = {}
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cp-ops-'))
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: database().url,
      SECRET_KEY: SECRET,
      LOG_LEVEL: 'info',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    }
  })
  after(() => rmSync(dataDir, { recursive: true, force: true }))

  async function cli(...args: string[]) {
    try {
      const out = await run(process.execPath, [CLI, ...args], {
        env: { PATH: process.env.PATH ?? '', ...env },
      })
      return { code: 0, ...out }
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string }
      return { code: e.code, stdout: e.stdout, stderr: e.stderr }
    }
  }

  test('courseport worker answers /healthz and /readyz on WORKER_HEALTH_PORT', async () => {
    const port = await freePort()
    const worker = await startCourseport(
      ['worker'],
      { ...env, WORKER_HEALTH_PORT: String(port) },
      { ready: 'courseport worker started', port },
    )
    try {
      const health = await fetch(`${worker.url}/healthz`)
      assert.equal(health.status, 200)
      const ready = await fetch(`${worker.url}/readyz`)
      assert.deepEqual(await ready.json(), { status: 'ready' })
    } finally {
      assert.equal(await worker.stop(), 0, worker.output())
    }
  })

  test('jobs list shows failed and stuck jobs, and jobs retry runs one again now', async () => {
    const { db } = database()
    const queue = createQueue(db)
    const failed = await queue.enqueue(db.kysely, { task: 'ops.failing' })
    const stuck = await queue.enqueue(db.kysely, { task: 'ops.stuck' })
    const live = await queue.enqueue(db.kysely, { task: 'ops.live' })
    const past = new Date(Date.now() - 60_000).toISOString()
    const future = new Date(Date.now() + 60_000).toISOString()
    await sql`update jobs set status = 'failed', attempts = max_attempts, last_error = 'boom' where id = ${failed}`.execute(
      db.kysely,
    )
    await sql`update jobs set status = 'running', attempts = 1, lease_until = ${past}, lease_token = 't1' where id = ${stuck}`.execute(
      db.kysely,
    )
    await sql`update jobs set status = 'running', attempts = 1, lease_until = ${future}, lease_token = 't2' where id = ${live}`.execute(
      db.kysely,
    )

    const failedList = await cli('jobs', 'list', '--state', 'failed', '--json')
    assert.equal(failedList.code, 0, failedList.stderr)
    assert.deepEqual(
      JSON.parse(failedList.stdout).map((j: { id: string; lastError: string }) => [
        j.id,
        j.lastError,
      ]),
      [[failed, 'boom']],
    )
    const stuckList = await cli('jobs', 'list', '--state', 'stuck', '--json')
    assert.deepEqual(
      JSON.parse(stuckList.stdout).map((j: { id: string }) => j.id),
      [stuck],
    )
    assert.match((await cli('jobs', 'list')).stdout, new RegExp(`${failed}\\tops.failing\\tfailed`))

    assert.equal((await cli('jobs', 'retry', failed)).code, 0)
    assert.equal((await cli('jobs', 'retry', stuck)).code, 0)
    const refused = await cli('jobs', 'retry', live)
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /live lease/)
    for (const id of [failed, stuck]) {
      const job = await queue.jobs.get(id)
      assert.equal(job?.status, 'pending', id)
      assert.equal(job?.attempts, 0, id)
      assert.ok(Date.parse(job?.runAt ?? '') <= Date.now(), 'due now')
    }
    assert.equal((await queue.jobs.get(live))?.status, 'running')
    assert.equal((await cli('jobs', 'list', '--state', 'bogus')).code, 64)
  })

  test('on SIGTERM /readyz turns 503 while the listeners still serve for SHUTDOWN_DRAIN_DELAY_MS', async () => {
    const server = await startCourseport(['serve', '--no-worker'], {
      ...env,
      SHUTDOWN_DRAIN_DELAY_MS: '60000', // ended by the SIGKILL below, not by the clock
      PORT: String(await freePort()),
      CONTENT_PORT: String(await freePort()),
    })
    try {
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200)
      server.child.kill('SIGTERM')
      let ready: Response
      do ready = await fetch(`${server.url}/readyz`)
      while (ready.status === 200)
      assert.equal(ready.status, 503)
      assert.deepEqual(await ready.json(), { status: 'shutting_down' })
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'still serving')
      assert.equal(server.child.exitCode, null)
    } finally {
      await server.stop('SIGKILL')
    }
  })

  test('temp files of a killed process are removed at the next start, and a drained one removes its own', async () => {
    const base = mkdtempSync(join(tmpdir(), 'cp-scratch-'))
    const folder = (pid: number | undefined) =>
      join(base, `courseport-run-${hostname().replace(/[^A-Za-z0-9.-]/g, '_')}-${pid}`)
    const serve = async () => {
      const port = await freePort()
      return startCourseport(['serve'], {
        ...env,
        TMPDIR: base,
        PORT: String(port),
        CONTENT_PORT: String(await freePort()),
      })
    }
    try {
      const killed = await serve()
      const left = folder(killed.child.pid)
      assert.ok(existsSync(left), readdirSync(base).join(', '))
      writeFileSync(join(left, 'half-received-upload.zip'), 'partial')
      await killed.stop('SIGKILL')

      const next = await serve()
      assert.equal(existsSync(left), false, 'the dead process folder is gone')
      assert.ok(existsSync(folder(next.child.pid)))
      assert.equal(await next.stop('SIGTERM'), 0, next.output())
      assert.deepEqual(readdirSync(base), [], 'a drained process removes its own folder')
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
