import { type Clock, systemClock } from '../../shared/clock.ts'
import type { Db } from '../db/database.ts'
import { type ClaimedJob, claimJobs, failExpiredFinalAttempts } from './job-lease.repository.ts'
import { JobRun, type ResolvedTask } from './job-run.ts'
import { fireDueSchedules } from './job-schedule.repository.ts'
import {
  DEFAULT_LEASE_SECONDS,
  defaultRetryDelaySeconds,
  type TaskRegistry,
} from './queue.types.ts'
import { consoleLogger, type WorkerLogger } from './worker-logger.ts'

export interface WorkerOptions {
  /** Jobs run at the same time by this worker. Default: 4. */
  concurrency?: number
  /** Wait between polls when idle; `wake()` cuts it short. Default: 1000 ms. */
  pollIntervalMs?: number
  /**
   * Lease of tasks that do not set their own. Default: 60 s (`courseport worker` passes
   * JOB_LEASE_SECONDS, default 30). Leases are renewed while the job runs (see `Worker`), so
   * this is how long a killed worker's job waits before another worker takes it.
   */
  leaseSeconds?: number
  /** Whether this worker fires due schedules (safe on every worker). Default: true. */
  schedules?: boolean
  /** How long `stop()` waits for running jobs before releasing them. Default: 20 000 ms. */
  shutdownTimeoutMs?: number
  /** Default: the system clock. */
  clock?: Clock
  /** Default: warnings and errors to the console. */
  logger?: WorkerLogger
}

/** A job this worker runs: its run, and its end as the worker sees it (the slot freed). */
interface RunningJob {
  run: JobRun
  done: Promise<void>
}

/**
 * Polls the jobs table and runs the registered tasks. Handler errors are recorded on the job
 * (retry with backoff, then `failed`) and never escape; database errors while polling are logged
 * and the next poll tries again. Several workers, in one or many processes, may share a database.
 *
 * Leases are short and kept alive by a heartbeat (`JobRun`): a worker that dies stops renewing,
 * so its jobs are claimable again within one lease (30 s with the default JOB_LEASE_SECONDS)
 * rather than after the longest run a task could take.
 */
export class Worker {
  readonly #db: Db
  readonly #tasks: Map<string, ResolvedTask>
  readonly #leases: Map<string, number>
  readonly #concurrency: number
  readonly #pollIntervalMs: number
  readonly #schedules: boolean
  readonly #shutdownTimeoutMs: number
  readonly #clock: Clock
  readonly #logger: WorkerLogger
  readonly #running = new Map<string, RunningJob>()
  #state: 'idle' | 'running' | 'stopping' | 'stopped' = 'idle'
  #loop: Promise<void> | undefined
  #stopping: Promise<void> | undefined
  #sleepTimer: NodeJS.Timeout | undefined
  #wakeSleeper: (() => void) | undefined
  #wakeRequested = false
  #lastHousekeeping = 0

  constructor(db: Db, tasks: TaskRegistry, options: WorkerOptions = {}) {
    this.#db = db
    this.#concurrency = positiveInteger('concurrency', options.concurrency ?? 4)
    this.#pollIntervalMs = positiveInteger('pollIntervalMs', options.pollIntervalMs ?? 1000)
    this.#schedules = options.schedules ?? true
    this.#shutdownTimeoutMs = options.shutdownTimeoutMs ?? 20_000
    this.#clock = options.clock ?? systemClock
    this.#logger = options.logger ?? consoleLogger
    const defaultLease = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS
    this.#tasks = new Map()
    this.#leases = new Map()
    for (const [name, entry] of Object.entries(tasks)) {
      const def = typeof entry === 'function' ? { handler: entry } : entry
      const leaseSeconds = def.leaseSeconds ?? defaultLease
      if (!(leaseSeconds > 0)) throw new Error(`task ${name}: leaseSeconds must be > 0`)
      this.#tasks.set(name, {
        handler: def.handler,
        leaseSeconds,
        retryDelaySeconds: def.retryDelaySeconds ?? defaultRetryDelaySeconds,
      })
      this.#leases.set(name, leaseSeconds)
    }
  }

  /** Jobs currently executing in this worker. */
  get runningCount(): number {
    return this.#running.size
  }

  /** Starts polling. A worker starts once; make a new one after `stop()`. */
  start(): void {
    if (this.#state !== 'idle') throw new Error(`worker cannot start: it is ${this.#state}`)
    this.#state = 'running'
    this.#loop = this.#pollLoop()
  }

  /**
   * Polls now instead of at the end of the interval, e.g. once a transaction that enqueued jobs
   * has committed (a job enqueued in an open transaction is not visible yet).
   */
  wake(): void {
    if (this.#state !== 'running') return
    const wake = this.#wakeSleeper
    if (!wake) {
      this.#wakeRequested = true
      return
    }
    this.#wakeSleeper = undefined
    clearTimeout(this.#sleepTimer)
    wake()
  }

  /**
   * Graceful shutdown (call it on SIGTERM): stops claiming, waits up to `timeoutMs` (default: the
   * `shutdownTimeoutMs` option) for running jobs, then aborts the signals of those still running
   * and releases their leases so any worker can take them at once; their late outcome is ignored.
   */
  stop(options: { timeoutMs?: number } = {}): Promise<void> {
    this.#stopping ??= this.#shutdown(options.timeoutMs ?? this.#shutdownTimeoutMs)
    return this.#stopping
  }

  /**
   * Without starting the poll loop: fires due schedules, then claims and runs due jobs (up to
   * `concurrency` at a time) until none is due; returns how many ran. For tests and one-shot CLI
   * runs. Unlike the loop, database errors are thrown.
   */
  async runOnce(): Promise<number> {
    if (this.#state !== 'idle')
      throw new Error(`runOnce needs an idle worker; it is ${this.#state}`)
    await this.#housekeeping()
    let ran = 0
    for (;;) {
      const jobs = await claimJobs(this.#db, this.#clock.now(), this.#leases, this.#concurrency)
      if (jobs.length === 0) return ran
      ran += jobs.length
      await Promise.all(jobs.map((job) => this.#launch(job).done))
    }
  }

  async #pollLoop(): Promise<void> {
    while (this.#state === 'running') {
      try {
        if (Date.now() - this.#lastHousekeeping >= this.#pollIntervalMs) await this.#housekeeping()
        const free = this.#concurrency - this.#running.size
        if (free > 0 && this.#state === 'running') {
          const jobs = await claimJobs(this.#db, this.#clock.now(), this.#leases, free, [
            ...this.#running.keys(),
          ])
          for (const job of jobs) this.#launch(job)
        }
      } catch (err) {
        this.#logger.error({ err }, 'poll failed; retrying after the poll interval')
      }
      if (this.#state !== 'running') return
      await this.#sleep()
    }
  }

  async #housekeeping(): Promise<void> {
    this.#lastHousekeeping = Date.now()
    if (this.#schedules) await fireDueSchedules(this.#db, this.#clock)
    const expired = await failExpiredFinalAttempts(this.#db, this.#clock.now())
    if (expired > 0)
      this.#logger.warn({ count: expired }, 'jobs failed: lease expired on last attempt')
  }

  #sleep(): Promise<void> {
    if (this.#wakeRequested) {
      this.#wakeRequested = false
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      this.#wakeSleeper = resolve
      this.#sleepTimer = setTimeout(() => {
        this.#wakeSleeper = undefined
        resolve()
      }, this.#pollIntervalMs)
    })
  }

  #launch(job: ClaimedJob): RunningJob {
    const task = this.#tasks.get(job.task)
    if (!task) throw new Error(`claimed job ${job.id} of unregistered task ${job.task}`)
    const run = new JobRun({ db: this.#db, clock: this.#clock, logger: this.#logger }, job, task)
    const entry: RunningJob = {
      run,
      done: run.done.finally(() => {
        this.#running.delete(job.id)
        this.wake()
      }),
    }
    this.#running.set(job.id, entry)
    return entry
  }

  async #shutdown(timeoutMs: number): Promise<void> {
    const wasStarted = this.#state === 'running'
    this.#state = 'stopping'
    const wake = this.#wakeSleeper
    this.#wakeSleeper = undefined
    clearTimeout(this.#sleepTimer)
    wake?.()
    if (wasStarted) await this.#loop
    if (this.#running.size > 0) {
      let timer: NodeJS.Timeout | undefined
      const finished = Promise.all([...this.#running.values()].map((e) => e.done)).then(() => true)
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs)
      })
      const allDone = await Promise.race([finished, timeout])
      clearTimeout(timer)
      if (!allDone) await this.#releaseRunning()
    }
    this.#state = 'stopped'
  }

  async #releaseRunning(): Promise<void> {
    for (const entry of [...this.#running.values()]) await entry.run.release()
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be an integer >= 1`)
  return value
}
