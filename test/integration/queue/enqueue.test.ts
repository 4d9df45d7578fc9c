import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { createQueue, Worker } from '../../../src/infra/queue/index.ts'
import {
  claimJobs,
  failExpiredFinalAttempts,
} from '../../../src/infra/queue/job-lease.repository.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { ownConnection, silentLogger } from './queue-test-helpers.ts'

describeEachDatabase('job queue: enqueue', (database) => {
  const clock = new ManualClock('2026-03-01T10:00:00.000Z')

  beforeEach(async () => {
    await database().db.kysely.deleteFrom('jobs').execute()
  })

  test('a job enqueued in a rolled-back transaction does not exist; a committed one does', async () => {
    const { db } = database()
    const queue = createQueue(db, { clock })
    await assert.rejects(
      db.kysely.transaction().execute(async (trx) => {
        await queue.enqueue(trx, { task: 'mail.send', payload: { to: 'a@example.com' } })
        throw new Error('business rule failed')
      }),
      /business rule failed/,
    )
    assert.deepEqual(await queue.jobs.countByStatus(), {
      pending: 0,
      running: 0,
      completed: 0,
      failed: 0,
    })

    const id = await db.kysely
      .transaction()
      .execute((trx) => queue.enqueue(trx, { task: 'mail.send', payload: { to: 'b@example.com' } }))
    const job = await queue.jobs.get(id)
    assert.equal(job?.status, 'pending')
    assert.deepEqual(job?.payload, { to: 'b@example.com' })
    assert.equal(job?.runAt, '2026-03-01T10:00:00.000Z')
    assert.equal(job?.maxAttempts, 5)
    assert.equal(job?.attempts, 0)
  })

  test("a pending job's key is not duplicated; 'replace' takes the new payload and run_at", async () => {
    const { db } = database()
    const queue = createQueue(db, { clock })
    const first = await queue.enqueue(db.kysely, {
      task: 'report.build',
      payload: { v: 1 },
      jobKey: 'report:ten_1',
      runAt: new Date('2026-03-01T10:05:00.000Z'),
    })
    const second = await queue.enqueue(db.kysely, {
      task: 'report.build',
      payload: { v: 2 },
      jobKey: 'report:ten_1',
      runAt: new Date('2026-03-01T10:10:00.000Z'),
      maxAttempts: 2,
    })
    assert.equal(second, first)
    assert.equal((await queue.jobs.countByStatus()).pending, 1)
    const job = await queue.jobs.get(first)
    assert.deepEqual(job?.payload, { v: 2 })
    assert.equal(job?.runAt, '2026-03-01T10:10:00.000Z')
    assert.equal(job?.maxAttempts, 2)
  })

  test("'preserve_run_at' keeps the first run_at; 'unsafe_dedupe' changes nothing", async () => {
    const { db } = database()
    const queue = createQueue(db, { clock })
    const id = await queue.enqueue(db.kysely, {
      task: 'digest',
      payload: { v: 1 },
      jobKey: 'digest',
      runAt: new Date('2026-03-01T10:05:00.000Z'),
    })
    await queue.enqueue(db.kysely, {
      task: 'digest',
      payload: { v: 2 },
      jobKey: 'digest',
      jobKeyMode: 'preserve_run_at',
      runAt: new Date('2026-03-01T11:00:00.000Z'),
    })
    let job = await queue.jobs.get(id)
    assert.deepEqual(job?.payload, { v: 2 })
    assert.equal(job?.runAt, '2026-03-01T10:05:00.000Z')

    const same = await queue.enqueue(db.kysely, {
      task: 'digest',
      payload: { v: 3 },
      jobKey: 'digest',
      jobKeyMode: 'unsafe_dedupe',
    })
    assert.equal(same, id)
    job = await queue.jobs.get(id)
    assert.deepEqual(job?.payload, { v: 2 })
    assert.equal((await queue.jobs.countByStatus()).pending, 1)
  })

  test('a key held by a completed job starts a new job, except with unsafe_dedupe', async (t) => {
    const { db } = database()
    const queue = createQueue(db, { clock })
    const worker = new Worker(
      ownConnection(t, database()),
      { once: async () => {} },
      { clock, logger: silentLogger },
    )
    const first = await queue.enqueue(db.kysely, { task: 'once', jobKey: 'k' })
    assert.equal(await worker.runOnce(), 1)
    assert.equal((await queue.jobs.get(first))?.status, 'completed')

    assert.equal(
      await queue.enqueue(db.kysely, { task: 'once', jobKey: 'k', jobKeyMode: 'unsafe_dedupe' }),
      first,
    )
    const second = await queue.enqueue(db.kysely, { task: 'once', jobKey: 'k' })
    assert.notEqual(second, first)
    assert.equal((await queue.jobs.get(first))?.jobKey, null)
    assert.equal((await queue.jobs.get(second))?.jobKey, 'k')
    assert.deepEqual(await queue.jobs.countByStatus(), {
      pending: 1,
      running: 0,
      completed: 1,
      failed: 0,
    })
  })

  test('a key held by a running job starts a new job and the superseded one is not retried', async (t) => {
    const { db } = database()
    const queue = createQueue(db, { clock })
    let releaseRun: () => void = () => {}
    const running = new Promise<void>((resolve) => {
      releaseRun = resolve
    })
    let started = false
    const worker = new Worker(
      ownConnection(t, database()),
      {
        sync: async () => {
          started = true
          await running
          throw new Error('the old run failed')
        },
      },
      { clock, logger: silentLogger },
    )
    const old = await queue.enqueue(db.kysely, { task: 'sync', payload: { v: 1 }, jobKey: 's' })
    const run = worker.runOnce()
    while (!started) await new Promise((r) => setImmediate(r))
    const fresh = await queue.enqueue(db.kysely, { task: 'sync', payload: { v: 2 }, jobKey: 's' })
    assert.notEqual(fresh, old)
    releaseRun()
    await run
    const oldJob = await queue.jobs.get(old)
    assert.equal(oldJob?.status, 'failed')
    assert.equal(oldJob?.jobKey, null)
    assert.equal(oldJob?.lastError, 'the old run failed')
    const freshJob = await queue.jobs.get(fresh)
    assert.equal(freshJob?.jobKey, 's')
    assert.deepEqual(freshJob?.payload, { v: 2 })
  })

  test('a superseded run whose worker died ends completed, not failed; a last attempt that dies fails', async () => {
    const { db } = database()
    const queue = createQueue(db, { clock })
    const leases = new Map([['sync', 30]])
    const old = await queue.enqueue(db.kysely, { task: 'sync', payload: { v: 1 }, jobKey: 's' })
    const lonely = await queue.enqueue(db.kysely, { task: 'sync', maxAttempts: 1 })
    // A worker claims both, then dies (SIGKILL): nothing completes or fails them.
    assert.equal((await claimJobs(db, clock.now(), leases, 10)).length, 2)
    const fresh = await queue.enqueue(db.kysely, { task: 'sync', payload: { v: 2 }, jobKey: 's' })
    assert.notEqual(fresh, old)
    clock.advance(31_000)
    assert.equal(await failExpiredFinalAttempts(db, clock.now()), 1)
    const superseded = await queue.jobs.get(old)
    assert.equal(superseded?.status, 'completed')
    assert.match(superseded?.lastError ?? '', /superseded by a newer job/)
    assert.equal((await queue.jobs.get(lonely))?.status, 'failed')
    assert.equal((await queue.jobs.get(fresh))?.status, 'pending')
  })

  test('rejects invalid specs', async () => {
    const { db } = database()
    const queue = createQueue(db, { clock })
    await assert.rejects(queue.enqueue(db.kysely, { task: '' }), /task is required/)
    await assert.rejects(queue.enqueue(db.kysely, { task: 't', maxAttempts: 0 }), /maxAttempts/)
  })
})
