import { type Clock, systemClock } from '../../shared/clock.ts'
import type { Db } from '../db/database.ts'
import type { Executor } from '../db/schema.ts'
import {
  countJobsByStatus,
  getJob,
  listJobs,
  listStuckJobs,
  pruneFinishedJobs,
  retryFailedJob,
  retryJobNow,
} from './job-admin.repository.ts'
import { enqueueJob } from './job-enqueue.ts'
import { defineSchedule } from './job-schedule.repository.ts'
import type { EnqueueSpec, JobInfo, JobStatus } from './queue.types.ts'

export interface QueueOptions {
  /** Stamps `run_at`, `created_at`, schedule times. Default: the system clock. */
  clock?: Clock
}

export interface Queue {
  /**
   * Adds a job; returns its id. Pass the caller's transaction as `executor` so the job exists
   * only if that transaction commits. Defaults: `runAt` now, `maxAttempts` 5, no `jobKey`,
   * `jobKeyMode` `replace`.
   */
  enqueue(executor: Executor, spec: EnqueueSpec): Promise<string>
  /**
   * Persists schedule `name`: a `task` job every `intervalSeconds` (integer ≥ 1), fired by the
   * tick of any worker (exactly once per period, whatever the number of workers). Idempotent;
   * call it at every start. The job's payload is `{ schedule, scheduledFor }`.
   */
  defineSchedule(name: string, task: string, intervalSeconds: number): Promise<void>
  /** Removes a schedule; returns whether it existed. */
  deleteSchedule(name: string): Promise<boolean>
  /** Admin helpers for the CLI and dashboard. */
  jobs: {
    countByStatus(): Promise<Record<JobStatus, number>>
    get(id: string): Promise<JobInfo | undefined>
    /** Oldest `run_at` first; `limit` default 100. */
    list(options: { status: JobStatus; task?: string; limit?: number }): Promise<JobInfo[]>
    /** A `failed` job back to `pending` now with attempts reset; false if it was not failed. */
    retry(id: string): Promise<boolean>
    /**
     * Running jobs whose lease ran out and pending jobs overdue by more than `overdueSeconds`
     * (default 300): work no worker is doing.
     */
    listStuck(options?: { overdueSeconds?: number; limit?: number }): Promise<JobInfo[]>
    /**
     * Runs a failed, stuck (expired lease) or pending job again now; returns the status it had,
     * or null when it is running under a live lease, completed, or absent.
     */
    retryNow(id: string): Promise<JobStatus | null>
    /** Deletes completed (and optionally failed) jobs last updated before `before`. */
    prune(before: Date, options?: { includeFailed?: boolean }): Promise<number>
  }
}

/** The producer side of the job queue (DESIGN §9); `Worker` is the consumer side. */
export function createQueue(db: Db, options: QueueOptions = {}): Queue {
  const clock = options.clock ?? systemClock
  return {
    enqueue: (executor, spec) => enqueueJob(executor, clock, spec),
    defineSchedule: (name, task, intervalSeconds) =>
      defineSchedule(db, clock, name, task, intervalSeconds),
    async deleteSchedule(name) {
      const result = await db.kysely
        .deleteFrom('job_schedules')
        .where('name', '=', name)
        .executeTakeFirst()
      return result.numDeletedRows === 1n
    },
    jobs: {
      countByStatus: () => countJobsByStatus(db.kysely),
      get: (id) => getJob(db.kysely, id),
      list: (listOptions) => listJobs(db.kysely, listOptions),
      retry: (id) => retryFailedJob(db.kysely, clock, id),
      listStuck: (stuckOptions) => listStuckJobs(db.kysely, clock.now(), stuckOptions),
      retryNow: (id) => retryJobNow(db.kysely, clock, id),
      prune: (before, pruneOptions) => pruneFinishedJobs(db.kysely, before, pruneOptions),
    },
  }
}
