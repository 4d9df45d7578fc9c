import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { createQueue, type TaskContext, Worker } from '../../../src/infra/queue/index.ts'
import { claimJobs, completeJob } from '../../../src/infra/queue/job-lease.repository.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { ownConnection, silentLogger, waitFor } from './queue-test-helpers.ts'

/** A promise with its resolver, to hold a handler until the test lets it go. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => {}
  const wait = new Promise<void>((resolve) => {
    open = resolve
  })
  return { wait, open }
}

describeEachDatabase('job queue: worker', (database) => {
  beforeEach(async () => {
    await database().db.kysely.deleteFrom('jobs').execute()
  })

  test('a failing job is retried after e^attempt seconds, then marked failed', async (t) => {
    const { db } = database()
    const clock = new ManualClock('2026-03-01T10:00:00.000Z')
    const queue = createQueue(db, { clock })
    const attempts: number[] = []
    const worker = new Worker(
      ownConnection(t, database()),
      {
        flaky: async (_payload, ctx) => {
          attempts.push(ctx.attempt)
          throw new Error(`boom ${ctx.attempt}`)
        },
      },
      { clock, logger: silentLogger },
    )
    const id = await queue.enqueue(db.kysely, { task: 'flaky', maxAttempts: 3 })

    assert.equal(await worker.runOnce(), 1)
    let job = await queue.jobs.get(id)
    assert.equal(job?.status, 'pending')
    assert.equal(job?.lastError, 'boom 1')
    assert.equal(job?.runAt, '2026-03-01T10:00:02.718Z') // e^1 s
    assert.equal(job?.leaseUntil, null)

    clock.advance(2717)
    assert.equal(await worker.runOnce(), 0, 'not due before the backoff has passed')
    clock.advance(1)
    assert.equal(await worker.runOnce(), 1)
    job = await queue.jobs.get(id)
    assert.equal(job?.lastError, 'boom 2')
    assert.equal(job?.runAt, '2026-03-01T10:00:10.107Z') // + e^2 s = 7.389 s

    clock.advance(7389)
    assert.equal(await worker.runOnce(), 1)
    job = await queue.jobs.get(id)
    assert.equal(job?.status, 'failed')
    assert.equal(job?.attempts, 3)
    assert.equal(job?.lastError, 'boom 3')

    clock.advance(86_400_000)
    assert.equal(await worker.runOnce(), 0, 'a failed job is not run again')
    assert.deepEqual(attempts, [1, 2, 3])

    assert.equal(await queue.jobs.retry(id), true)
    assert.equal((await queue.jobs.get(id))?.status, 'pending')
    assert.equal((await queue.jobs.list({ status: 'pending' }))[0]?.id, id)
  })

  test('a task can set its own backoff and succeed on a later attempt', async (t) => {
    const { db } = database()
    const clock = new ManualClock('2026-03-01T10:00:00.000Z')
    const queue = createQueue(db, { clock })
    const worker = new Worker(
      ownConnection(t, database()),
      {
        webhook: {
          retryDelaySeconds: (attempt) => [60, 300][attempt - 1] ?? 900,
          handler: async (_payload, ctx) => {
            if (ctx.attempt < 3) throw new Error('receiver answered 503')
          },
        },
      },
      { clock, logger: silentLogger },
    )
    const id = await queue.enqueue(db.kysely, { task: 'webhook' })
    await worker.runOnce()
    assert.equal((await queue.jobs.get(id))?.runAt, '2026-03-01T10:01:00.000Z')
    clock.advance(60_000)
    await worker.runOnce()
    assert.equal((await queue.jobs.get(id))?.runAt, '2026-03-01T10:06:00.000Z')
    clock.advance(300_000)
    await worker.runOnce()
    const job = await queue.jobs.get(id)
    assert.equal(job?.status, 'completed')
    assert.equal(job?.attempts, 3)
  })

  test('a stale worker cannot record an outcome once its lease was taken over', async (t) => {
    const { db } = database()
    const clock = new ManualClock('2026-03-01T10:00:00.000Z')
    const queue = createQueue(db, { clock })
    const slowRun = gate()
    let slowStarted = false
    const slow = new Worker(
      ownConnection(t, database()),
      {
        step: {
          leaseSeconds: 30,
          handler: async () => {
            slowStarted = true
            await slowRun.wait
          },
        },
      },
      { clock, logger: silentLogger, pollIntervalMs: 10 },
    )
    const other = new Worker(
      ownConnection(t, database()),
      {
        step: async () => {
          throw new Error('second run failed')
        },
      },
      { clock, logger: silentLogger },
    )
    try {
      const id = await queue.enqueue(db.kysely, { task: 'step' })
      slow.start()
      await waitFor('the slow run to start', () => slowStarted)
      const leased = await queue.jobs.get(id)
      assert.equal(leased?.status, 'running')
      assert.equal(leased?.leaseUntil, '2026-03-01T10:00:30.000Z')

      clock.advance(30_000) // the lease expires: the job may be claimed again
      assert.equal(await other.runOnce(), 1)
      let job = await queue.jobs.get(id)
      assert.equal(job?.status, 'pending')
      assert.equal(job?.attempts, 2)
      assert.equal(job?.lastError, 'second run failed')

      slowRun.open() // the first worker finishes late and tries to complete
      await waitFor('the slow run to end', () => slow.runningCount === 0)
      job = await queue.jobs.get(id)
      assert.equal(job?.status, 'pending', 'the late completion changed nothing')
      assert.equal(job?.lastError, 'second run failed')
    } finally {
      slowRun.open()
      await slow.stop()
    }
  })

  test('a heartbeat renews the lease while the job runs, and one that finds it taken over aborts the run', async (t) => {
    const { db } = database()
    const queue = createQueue(db)
    let context: TaskContext | undefined
    const worker = new Worker(
      ownConnection(t, database()),
      {
        beat: {
          leaseSeconds: 0.3, // renewed every 100 ms
          handler: async (_payload, ctx) => {
            context = ctx
            await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
          },
        },
      },
      { logger: silentLogger, pollIntervalMs: 10 },
    )
    const id = await queue.enqueue(db.kysely, { task: 'beat' })
    worker.start()
    try {
      await waitFor('the job to start', () => context !== undefined)
      const first = Date.parse((await queue.jobs.get(id))?.leaseUntil ?? '')
      await waitFor('a renewal', async () => {
        return Date.parse((await queue.jobs.get(id))?.leaseUntil ?? '') > first
      })
      assert.equal(context?.signal.aborted, false)
      // Another worker takes the job over (its claim writes a new fencing token).
      await db.kysely
        .updateTable('jobs')
        .set({ lease_token: 'other-worker' })
        .where('id', '=', id)
        .execute()
      await waitFor('the run to be aborted', () => context?.signal.aborted === true)
      assert.match(String((context?.signal.reason as Error | undefined)?.message), /taken over/)
      await waitFor('the run to end', () => worker.runningCount === 0)
      const job = await queue.jobs.get(id)
      assert.equal(job?.status, 'running', 'the abandoned run wrote no outcome')
      assert.equal(
        (
          await db.kysely
            .selectFrom('jobs')
            .select('lease_token')
            .where('id', '=', id)
            .executeTakeFirst()
        )?.lease_token,
        'other-worker',
      )
    } finally {
      await worker.stop()
    }
  })

  test('a completion with a stale lease token updates 0 rows', async () => {
    const { db } = database()
    const clock = new ManualClock('2026-03-01T10:00:00.000Z')
    const queue = createQueue(db, { clock })
    const id = await queue.enqueue(db.kysely, { task: 'step' })
    const leases = new Map([['step', 10]])
    const [first] = await claimJobs(db, clock.now(), leases, 5)
    assert.equal(first?.id, id)
    assert.deepEqual(await claimJobs(db, clock.now(), leases, 5), [], 'leased: not claimable')
    clock.advance(10_000)
    const [second] = await claimJobs(db, clock.now(), leases, 5)
    assert.equal(second?.id, id)
    assert.notEqual(second?.leaseToken, first?.leaseToken)
    assert.equal(await completeJob(db, clock.now(), id, first?.leaseToken ?? ''), false)
    assert.equal((await queue.jobs.get(id))?.status, 'running')
    assert.equal(await completeJob(db, clock.now(), id, second?.leaseToken ?? ''), true)
    assert.equal((await queue.jobs.get(id))?.status, 'completed')
    assert.equal(await completeJob(db, clock.now(), id, second?.leaseToken ?? ''), false)
  })

  test('a lease that expires on the last attempt fails the job', async (t) => {
    const { db } = database()
    const clock = new ManualClock('2026-03-01T10:00:00.000Z')
    const queue = createQueue(db, { clock })
    const id = await queue.enqueue(db.kysely, { task: 'step', maxAttempts: 1 })
    const [claimed] = await claimJobs(db, clock.now(), new Map([['step', 10]]), 1)
    assert.equal(claimed?.id, id)
    clock.advance(10_000)
    const worker = new Worker(
      ownConnection(t, database()),
      { step: async () => {} },
      { clock, logger: silentLogger },
    )
    assert.equal(await worker.runOnce(), 0)
    const job = await queue.jobs.get(id)
    assert.equal(job?.status, 'failed')
    assert.match(job?.lastError ?? '', /lease expired/)
  })

  test('stop() lets running jobs finish within the timeout', async (t) => {
    const { db } = database()
    const queue = createQueue(db)
    const ids = await Promise.all(
      [1, 2, 3].map((n) => queue.enqueue(db.kysely, { task: 'short', payload: n })),
    )
    let started = 0
    const worker = new Worker(
      ownConnection(t, database()),
      {
        short: async () => {
          started++
          await new Promise((r) => setTimeout(r, 100))
        },
      },
      { logger: silentLogger, pollIntervalMs: 10 },
    )
    worker.start()
    await waitFor('all three to start', () => started === 3)
    await worker.stop({ timeoutMs: 5000 })
    for (const id of ids) assert.equal((await queue.jobs.get(id))?.status, 'completed')
    assert.throws(() => worker.start(), /stopped/)
  })

  test('stop() releases unfinished jobs so another worker takes them at once', async (t) => {
    const { db } = database()
    const queue = createQueue(db)
    const id = await queue.enqueue(db.kysely, { task: 'long' })
    let firstContext: TaskContext | undefined
    let finishFirst = () => {}
    const firstMayFinish = new Promise<void>((resolve) => {
      finishFirst = resolve
    })
    const stuck = new Worker(
      ownConnection(t, database()),
      {
        long: {
          leaseSeconds: 3600,
          handler: async (_payload, ctx) => {
            firstContext = ctx
            await firstMayFinish // ignores the signal on purpose
          },
        },
      },
      { logger: silentLogger, pollIntervalMs: 10 },
    )
    stuck.start()
    await waitFor('the long job to start', () => firstContext !== undefined)
    assert.equal((await queue.jobs.get(id))?.status, 'running')
    await stuck.stop({ timeoutMs: 50 })

    assert.equal(firstContext?.signal.aborted, true)
    const released = await queue.jobs.get(id)
    assert.equal(released?.status, 'pending')
    assert.equal(released?.leaseUntil, null)
    assert.equal(released?.attempts, 0, 'the interrupted attempt does not count')

    const attempts: number[] = []
    const next = new Worker(
      ownConnection(t, database()),
      { long: async (_payload, ctx) => void attempts.push(ctx.attempt) },
      { logger: silentLogger },
    )
    assert.equal(await next.runOnce(), 1)
    assert.deepEqual(attempts, [1])
    finishFirst() // the first handler ends now; its result must be ignored
    await waitFor('the first run to be wound up', () => stuck.runningCount === 0)
    const job = await queue.jobs.get(id)
    assert.equal(job?.status, 'completed')
    assert.equal(job?.attempts, 1)
  })

  test('wake() runs a new job without waiting for the poll interval', async (t) => {
    const { db } = database()
    const queue = createQueue(db)
    let ran = false
    const worker = new Worker(
      ownConnection(t, database()),
      {
        ping: async () => {
          ran = true
        },
      },
      { logger: silentLogger, pollIntervalMs: 60_000 },
    )
    worker.start()
    try {
      await new Promise((r) => setTimeout(r, 50)) // the first poll found nothing; next in 60 s
      await queue.enqueue(db.kysely, { task: 'ping' })
      worker.wake()
      await waitFor('the job to run', () => ran, 2000)
    } finally {
      await worker.stop()
    }
  })

  test('handler errors, including non-Error throws and bad payloads, never escape', async (t) => {
    const { db } = database()
    const queue = createQueue(db)
    const worker = new Worker(
      ownConnection(t, database()),
      {
        // biome-ignore lint/complexity/useArrowFunction: a synchronous throw from a non-async handler
        sync: function () {
          throw 'plain string'
        },
        async: async () => Promise.reject(new TypeError('bad')),
      },
      { logger: silentLogger, pollIntervalMs: 10 },
    )
    const a = await queue.enqueue(db.kysely, { task: 'sync', maxAttempts: 1 })
    const b = await queue.enqueue(db.kysely, { task: 'async', maxAttempts: 1 })
    worker.start()
    await waitFor('both to fail', async () => (await queue.jobs.countByStatus()).failed === 2)
    await worker.stop()
    assert.equal((await queue.jobs.get(a))?.lastError, 'plain string')
    assert.equal((await queue.jobs.get(b))?.lastError, 'bad')
  })
})
