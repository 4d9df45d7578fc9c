import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { createQueue, Worker } from '../../../src/infra/queue/index.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  createSideEffectTables,
  exited,
  ownConnection,
  sharedTestTasks,
  silentLogger,
  spawnWorker,
  waitFor,
} from './queue-test-helpers.ts'

/** Short on purpose: the killed worker's lease must run out for the job to be taken again. */
const LEASE_SECONDS = 1

describeEachDatabase('job queue: crash recovery', (database) => {
  let dir = ''
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-queue-crash-'))
    await createSideEffectTables(database().db)
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('a job whose worker process is SIGKILLed mid-run completes exactly once elsewhere', async (t) => {
    const { db, url } = database()
    const queue = createQueue(db)
    const id = await queue.enqueue(db.kysely, { task: 'test.block', payload: { step: 'import' } })

    const child = await spawnWorker(url, dir, LEASE_SECONDS)
    const childStart = join(dir, `started-${id}-pid-${child.pid}`)
    await waitFor('the child worker to start the job', () => existsSync(childStart))
    const claimed = await queue.jobs.get(id)
    assert.equal(claimed?.status, 'running')
    assert.equal(claimed?.attempts, 1)

    assert.equal(process.kill(child.pid ?? 0, 'SIGKILL'), true)
    await exited(child)
    assert.equal(child.signalCode, 'SIGKILL')
    assert.equal((await queue.jobs.get(id))?.status, 'running', 'nobody finished the killed run')

    writeFileSync(join(dir, 'release'), '') // from now on the task body runs to its end
    const survivorDb = ownConnection(t, database())
    const survivor = new Worker(
      survivorDb,
      sharedTestTasks(survivorDb, dir, 'survivor', LEASE_SECONDS),
      {
        pollIntervalMs: 50,
        logger: silentLogger,
      },
    )
    survivor.start()
    try {
      await waitFor(
        'the job to complete after the lease expired',
        async () => (await queue.jobs.get(id))?.status === 'completed',
        15_000,
      )
    } finally {
      await survivor.stop()
    }

    const job = await queue.jobs.get(id)
    assert.equal(job?.attempts, 2, 'the killed attempt counts as one')
    assert.equal(job?.leaseUntil, null)
    const starts = readdirSync(dir).filter((f) => f.startsWith(`started-${id}-`))
    assert.deepEqual(starts.sort(), [`started-${id}-pid-${child.pid}`, `started-${id}-survivor`])
    const { rows } = await sql<{ job_id: string; worker: string }>`
      select job_id, worker from queue_test_effects`.execute(db.kysely)
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      [{ job_id: id, worker: 'survivor' }],
      'the effect was recorded once',
    )
    assert.deepEqual(await queue.jobs.countByStatus(), {
      pending: 0,
      running: 0,
      completed: 1,
      failed: 0,
    })
  })

  test('heartbeats keep a live worker job past its lease; a SIGKILLed worker job moves within one lease', async (t) => {
    const lease = 2
    rmSync(join(dir, 'release'), { force: true }) // the job must block until the kill
    const { db, url } = database()
    const queue = createQueue(db)
    const id = await queue.enqueue(db.kysely, {
      task: 'test.block',
      payload: { step: 'heartbeat' },
    })
    const child = await spawnWorker(url, dir, lease)
    await waitFor('the child worker to start the job', () =>
      existsSync(join(dir, `started-${id}-pid-${child.pid}`)),
    )
    const survivorDb = ownConnection(t, database())
    const survivor = new Worker(survivorDb, sharedTestTasks(survivorDb, dir, 'heir', lease), {
      pollIntervalMs: 50,
      leaseSeconds: lease,
      logger: silentLogger,
    })
    survivor.start()
    try {
      // The first lease ran out long ago unless the child renewed it: wait for two renewals
      // past it while the survivor polls, and see that the survivor never took the job.
      const first = Date.parse((await queue.jobs.get(id))?.leaseUntil ?? '')
      await waitFor('two heartbeats past the first lease', async () => {
        const until = Date.parse((await queue.jobs.get(id))?.leaseUntil ?? '')
        return until >= first + (2 * (lease * 1000)) / 3 + lease * 1000 - 50
      })
      assert.equal(existsSync(join(dir, `started-${id}-heir`)), false, 'a live lease is kept')

      const killedAt = Date.now()
      process.kill(child.pid ?? 0, 'SIGKILL')
      await exited(child)
      await waitFor('the survivor to take the job over', () =>
        existsSync(join(dir, `started-${id}-heir`)),
      )
      const recoveryMs = Date.now() - killedAt
      t.diagnostic(`taken over ${recoveryMs} ms after SIGKILL (lease ${lease} s)`)
      assert.ok(recoveryMs <= lease * 1000 + 1500, `recovery took ${recoveryMs} ms`)
      writeFileSync(join(dir, 'release'), '')
      await waitFor(
        'the job to complete',
        async () => (await queue.jobs.get(id))?.status === 'completed',
      )
    } finally {
      await survivor.stop()
      rmSync(join(dir, 'release'), { force: true })
    }
  })
})
