import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { createQueue, Worker } from '../../../src/infra/queue/index.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  createSideEffectTables,
  exited,
  ownConnection,
  runsPerJob,
  sharedTestTasks,
  silentLogger,
  spawnWorker,
  waitFor,
} from './queue-test-helpers.ts'

const JOBS = 200

describeEachDatabase('job queue: concurrent workers', (database) => {
  let dir = ''
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-queue-'))
    await createSideEffectTables(database().db)
  })
  after(() => rmSync(dir, { recursive: true, force: true }))
  beforeEach(async () => {
    await database().db.kysely.deleteFrom('jobs').execute()
  })

  test(`${JOBS} jobs over 3 in-process workers (separate connections) each run exactly once`, async (t) => {
    const { db } = database()
    const queue = createQueue(db)
    const runs = new Map<string, number>()
    const byWorker = [0, 0, 0]
    const workers = byWorker.map((_, index) => {
      return new Worker(
        ownConnection(t, database()),
        {
          count: async (_payload, ctx) => {
            runs.set(ctx.jobId, (runs.get(ctx.jobId) ?? 0) + 1)
            byWorker[index] = (byWorker[index] ?? 0) + 1
            await sleep(1)
          },
        },
        { concurrency: 4, pollIntervalMs: 10, logger: silentLogger },
      )
    })
    try {
      for (const worker of workers) worker.start()
      const ids: string[] = []
      for (let n = 0; n < JOBS; n++)
        ids.push(await queue.enqueue(db.kysely, { task: 'count', payload: n }))
      await waitFor(
        'all jobs to complete',
        async () => (await queue.jobs.countByStatus()).completed === JOBS,
      )
      assert.equal(runs.size, JOBS)
      for (const id of ids) assert.equal(runs.get(id), 1, `job ${id} ran ${runs.get(id)} times`)
      assert.ok(
        byWorker.filter((n) => n > 0).length >= 2,
        `work was shared: ${byWorker.join(', ')}`,
      )
    } finally {
      for (const worker of workers) await worker.stop()
    }
  })

  test(`${JOBS} jobs over this process and two worker processes each run exactly once`, async (t) => {
    const { db, url } = database()
    const queue = createQueue(db)
    const children = [await spawnWorker(url, dir, 60), await spawnWorker(url, dir, 60)]
    const localDb = ownConnection(t, database())
    const local = new Worker(localDb, sharedTestTasks(localDb, dir, 'local', 60), {
      pollIntervalMs: 10,
      logger: silentLogger,
    })
    try {
      local.start()
      const ids: string[] = []
      for (let n = 0; n < JOBS; n++) {
        ids.push(await queue.enqueue(db.kysely, { task: 'test.record', payload: n }))
      }
      await waitFor(
        'all jobs to complete',
        async () => (await queue.jobs.countByStatus()).completed === JOBS,
      )
      const runs = await runsPerJob(db)
      assert.equal(runs.size, JOBS)
      for (const id of ids) assert.equal(runs.get(id), 1, `job ${id} ran ${runs.get(id)} times`)
      const { rows } = await sql<{ worker: string }>`
        select distinct worker from queue_test_runs`.execute(db.kysely)
      assert.ok(rows.length >= 2, `work was shared: ${rows.map((r) => r.worker).join(', ')}`)
    } finally {
      await local.stop()
      for (const child of children) child.kill('SIGTERM')
      const codes = await Promise.all(children.map(exited))
      assert.deepEqual(codes, [0, 0], 'the worker processes stopped gracefully on SIGTERM')
    }
  })
})
