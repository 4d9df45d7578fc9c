import type { Clock } from '../../shared/clock.ts'
import type { Db } from '../db/database.ts'
import {
  type ClaimedJob,
  completeJob,
  failJob,
  releaseJob,
  renewLease,
} from './job-lease.repository.ts'
import type { TaskHandler } from './queue.types.ts'
import type { WorkerLogger } from './worker-logger.ts'

/** A registered task with its defaults filled in (`Worker`'s constructor does that). */
export interface ResolvedTask {
  handler: TaskHandler
  leaseSeconds: number
  retryDelaySeconds: (attempt: number) => number
}

export interface JobRunDeps {
  db: Db
  clock: Clock
  logger: WorkerLogger
}

const LAST_ERROR_MAX_CHARS = 4000

/**
 * One claimed job from its start to its recorded outcome: the handler runs with an abort signal
 * while a heartbeat renews the lease every third of it under the job's fencing token. A
 * heartbeat that finds the token changed (another worker took the job over) aborts the signal
 * and nothing more is written for this run; one that cannot reach the database keeps trying, and
 * the signal is aborted when the lease runs out. `release()` gives the lease back unfinished
 * (shutdown). `done` never rejects.
 */
export class JobRun {
  readonly job: ClaimedJob
  readonly done: Promise<void>
  readonly #deps: JobRunDeps
  readonly #controller = new AbortController()
  /** Set once a heartbeat found the lease taken over: the outcome must not be written. */
  #lost = false
  /** Set once `release()` gave the lease back: the outcome must not be written. */
  #released = false

  constructor(deps: JobRunDeps, job: ClaimedJob, task: ResolvedTask) {
    this.#deps = deps
    this.job = job
    const leaseMs = task.leaseSeconds * 1000
    const expire = () => this.#controller.abort(new Error(`lease of job ${job.id} expired`))
    let leaseTimer = setTimeout(expire, leaseMs)
    leaseTimer.unref()
    let renewing = false
    const heartbeat = setInterval(
      () => {
        if (renewing || this.#controller.signal.aborted) return
        renewing = true
        const startedAt = deps.clock.now()
        void this.#renew(new Date(startedAt.getTime() + leaseMs))
          .then((renewed) => {
            if (!renewed) return
            clearTimeout(leaseTimer)
            leaseTimer = setTimeout(expire, leaseMs)
            leaseTimer.unref()
          })
          .finally(() => {
            renewing = false
          })
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    )
    heartbeat.unref()
    this.done = this.#execute(task).finally(() => {
      clearInterval(heartbeat)
      clearTimeout(leaseTimer)
    })
  }

  /** Aborts the handler and gives the lease back so any worker can take the job at once. */
  async release(): Promise<void> {
    const { db, clock, logger } = this.#deps
    this.#released = true
    this.#controller.abort(new Error('worker stopping'))
    try {
      await releaseJob(db, clock.now(), this.job.id, this.job.leaseToken)
      logger.info({ jobId: this.job.id }, 'released the lease of an unfinished job')
    } catch (err) {
      logger.error({ jobId: this.job.id, err }, 'could not release a job lease')
    }
  }

  /** One heartbeat; true when the lease was extended. Never rejects. */
  async #renew(until: Date): Promise<boolean> {
    const { db, clock, logger } = this.#deps
    const { job } = this
    try {
      if (await renewLease(db, clock.now(), job.id, job.leaseToken, until)) return true
      if (this.#released) return false
      this.#lost = true
      this.#controller.abort(new Error(`lease of job ${job.id} was taken over`))
      logger.warn({ jobId: job.id, task: job.task }, 'job lease taken over; run abandoned')
    } catch (err) {
      logger.warn({ jobId: job.id, err }, 'could not renew a job lease; retrying')
    }
    return false
  }

  /** Runs the handler and records the outcome under the lease token; never rejects. */
  async #execute(task: ResolvedTask): Promise<void> {
    const { db, clock, logger } = this.#deps
    const { job } = this
    let failure: unknown
    let succeeded = false
    try {
      await task.handler(JSON.parse(job.payload), {
        jobId: job.id,
        attempt: job.attempts,
        maxAttempts: job.maxAttempts,
        signal: this.#controller.signal,
        clock,
      })
      succeeded = true
    } catch (err) {
      failure = err
    }
    if (this.#released || this.#lost) return
    const log = { jobId: job.id, task: job.task, attempt: job.attempts }
    try {
      const now = clock.now()
      if (succeeded) {
        if (!(await completeJob(db, now, job.id, job.leaseToken))) {
          logger.warn(log, 'job finished after its lease was taken over; result ignored')
        }
        return
      }
      const delayMs = Math.round(task.retryDelaySeconds(job.attempts) * 1000)
      const retryAt = new Date(now.getTime() + delayMs)
      const message = errorMessage(failure)
      const recorded = await failJob(db, now, job.id, job.leaseToken, message, retryAt)
      logger.warn(
        { ...log, err: failure },
        recorded ? 'job attempt failed' : 'job failed after its lease was taken over; ignored',
      )
    } catch (err) {
      logger.error({ ...log, err }, 'could not record the outcome of a job')
    }
  }
}

function errorMessage(err: unknown): string {
  const text = err instanceof Error ? err.message || err.name : String(err)
  return text.length > LAST_ERROR_MAX_CHARS ? `${text.slice(0, LAST_ERROR_MAX_CHARS)}…` : text
}
