import assert from 'node:assert/strict'
import { beforeEach, type TestContext, test } from 'node:test'
import {
  createQueue,
  type ScheduledPayload,
  type TaskRegistry,
  Worker,
} from '../../../src/infra/queue/index.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { ownConnection, silentLogger, waitFor } from './queue-test-helpers.ts'

describeEachDatabase('job queue: schedules', (database) => {
  beforeEach(async () => {
    const { db } = database()
    await db.kysely.deleteFrom('jobs').execute()
    await db.kysely.deleteFrom('job_schedules').execute()
  })

  /** `count` workers, each on its own connection, all running `tasks`. */
  function openWorkers(t: TestContext, count: number, tasks: TaskRegistry, clock?: ManualClock) {
    const workers = Array.from(
      { length: count },
      () =>
        new Worker(ownConnection(t, database()), tasks, {
          clock,
          pollIntervalMs: 10,
          logger: silentLogger,
        }),
    )
    const close = async () => {
      for (const worker of workers) await worker.stop()
    }
    return { workers, close }
  }

  test('fires exactly once per period however many workers tick at the same time', async (t) => {
    const { db } = database()
    const clock = new ManualClock('2026-03-01T10:00:00.000Z')
    const queue = createQueue(db, { clock })
    const fired: string[] = []
    const tasks: TaskRegistry = {
      'events.fanout': async (payload) => {
        fired.push((payload as ScheduledPayload).scheduledFor)
      },
    }
    const { workers, close } = openWorkers(t, 4, tasks, clock)
    try {
      await queue.defineSchedule('fanout', 'events.fanout', 1)
      for (let period = 0; period < 5; period++) {
        // Every worker ticks three times at once: 12 racing attempts to fire the same slot.
        await Promise.all(workers.flatMap((w) => [w, w, w]).map((w) => w.runOnce()))
        clock.advance(1000)
      }
      assert.deepEqual(fired, [
        '2026-03-01T10:00:00.000Z',
        '2026-03-01T10:00:01.000Z',
        '2026-03-01T10:00:02.000Z',
        '2026-03-01T10:00:03.000Z',
        '2026-03-01T10:00:04.000Z',
      ])
      assert.equal((await queue.jobs.countByStatus()).completed, 5)
    } finally {
      await close()
    }
  })

  test('missed periods are not replayed; redefining keeps the timetable', async (t) => {
    const { db } = database()
    const clock = new ManualClock('2026-03-01T10:00:00.000Z')
    const queue = createQueue(db, { clock })
    const fired: string[] = []
    const worker = new Worker(
      ownConnection(t, database()),
      { sweep: async (payload) => void fired.push((payload as ScheduledPayload).scheduledFor) },
      { clock, logger: silentLogger },
    )
    await queue.defineSchedule('sweep', 'sweep', 300)
    await worker.runOnce()
    clock.advance(3_600_000 + 1000) // an hour (12 periods) without any worker
    await queue.defineSchedule('sweep', 'sweep', 300) // a restart redefines it
    await worker.runOnce()
    await worker.runOnce()
    assert.deepEqual(fired, ['2026-03-01T10:00:00.000Z', '2026-03-01T10:05:00.000Z'])
    const [schedule] = await db.kysely.selectFrom('job_schedules').selectAll().execute()
    assert.equal(schedule?.next_run_at, '2026-03-01T11:05:00.000Z')

    // Shortening the interval takes effect within one new interval.
    await queue.defineSchedule('sweep', 'sweep', 1)
    clock.advance(1000)
    await worker.runOnce()
    assert.equal(fired.length, 3)
    assert.equal(await queue.deleteSchedule('sweep'), true)
    await assert.rejects(queue.defineSchedule('x', 'sweep', 0.5), /integer >= 1/)
  })

  test('with real time, a 1 s schedule fires once per second across three polling workers', async (t) => {
    const { db } = database()
    const queue = createQueue(db)
    const fired: string[] = []
    const { workers, close } = openWorkers(t, 3, {
      tick: async (payload) => void fired.push((payload as ScheduledPayload).scheduledFor),
    })
    try {
      await queue.defineSchedule('tick', 'tick', 1)
      for (const worker of workers) worker.start()
      await waitFor('three periods to fire', () => fired.length >= 3, 20_000)
    } finally {
      await close()
    }
    assert.equal(new Set(fired).size, fired.length, `no period twice: ${fired.join(', ')}`)
    // One run per period, none skipped: consecutive periods are exactly one interval apart.
    const times = fired.map((at) => Date.parse(at)).sort((a, b) => a - b)
    assert.deepEqual(
      times.slice(1).map((at, i) => at - (times[i] ?? 0)),
      times.slice(1).map(() => 1000),
      fired.join(', '),
    )
    const jobs = await db.kysely.selectFrom('jobs').select('job_key').execute()
    assert.equal(jobs.length, fired.length)
  })
})
