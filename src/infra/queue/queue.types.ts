import type { Clock } from '../../shared/clock.ts'

export type JobStatus = 'pending' | 'running' | 'completed' | 'failed'

export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'completed', 'failed']

/**
 * `last_error` of a running job whose key a newer job took (`jobKeyMode` replace): the newer job
 * does its work, so when the old run's lease runs out (its worker died) it ends `completed` with
 * this note, not `failed`; an error the old run throws still fails it.
 */
export const SUPERSEDED_NOTE = 'superseded by a newer job with the same key'

/**
 * What to do when a job with the same `jobKey` already exists (graphile-worker's `jobKeyMode`).
 * - `replace` (default): a pending job is overwritten with the new task, payload, `runAt` and
 *   `maxAttempts`, and its attempts and last error are reset. Use it to reschedule or debounce.
 * - `preserve_run_at`: like `replace`, but a pending job that has not been attempted yet keeps
 *   its `run_at`. Use it to throttle (at most one run per window).
 * - `unsafe_dedupe`: if any job holds the key, whatever its status (even completed or failed),
 *   nothing changes and that job's id is returned. Schedules use it so a period fires once.
 *
 * With `replace` and `preserve_run_at`, a job holding the key that is running, completed or
 * failed gives the key up and a new job is created; a running job that gave up its key is not
 * retried if it fails (its attempts are raised to its maximum), as in graphile-worker.
 */
export type JobKeyMode = 'replace' | 'preserve_run_at' | 'unsafe_dedupe'

export interface EnqueueSpec {
  task: string
  /** Any JSON-serialisable value; the handler receives it parsed. */
  payload?: unknown
  /** Earliest time the job may run. Default: now (the queue's clock). */
  runAt?: Date
  /** Attempts before the job is marked `failed`. Default: 5 (`DEFAULT_MAX_ATTEMPTS`). */
  maxAttempts?: number
  /** At most one pending job per key; see `JobKeyMode`. Default: no key. */
  jobKey?: string
  /** Default: `replace`. */
  jobKeyMode?: JobKeyMode
}

export interface TaskContext {
  jobId: string
  /** 1 for the first attempt. */
  attempt: number
  maxAttempts: number
  /**
   * Aborted when the job's lease is lost — another worker took the job over, or the heartbeat
   * could not renew it before it ran out — or when a stopping worker gives up waiting and
   * releases the lease. Stop writing when it fires; pass it to fetch, streams, etc.
   */
  signal: AbortSignal
  clock: Clock
}

/**
 * A task body. The payload comes from the database as parsed JSON: validate it. Resolving
 * completes the job; throwing (or rejecting) records the error and schedules a retry.
 */
export type TaskHandler = (payload: unknown, ctx: TaskContext) => Promise<void>

export interface TaskDefinition {
  handler: TaskHandler
  /**
   * How long a claimed job is reserved for one worker without a heartbeat: the worker renews it
   * every third of this while the handler runs, so it bounds crash recovery, not the run's
   * length. Default: the worker's `leaseSeconds` (60; JOB_LEASE_SECONDS, 30, for `courseport`).
   */
  leaseSeconds?: number
  /**
   * Seconds to wait after failed attempt `attempt` (1-based) before the next one.
   * Default: `defaultRetryDelaySeconds` (e^attempt, capped at e^10 s).
   */
  retryDelaySeconds?: (attempt: number) => number
}

/** Task name → handler, or handler with per-task settings. */
export type TaskRegistry = Record<string, TaskHandler | TaskDefinition>

export const DEFAULT_MAX_ATTEMPTS = 5
export const DEFAULT_LEASE_SECONDS = 60

/** Cap of the default backoff exponent: e^10 s ≈ 6 h 7 min. */
const MAX_BACKOFF_EXPONENT = 10

/**
 * graphile-worker's backoff: after failed attempt n, wait e^min(n, 10) seconds — 2.7 s, 7.4 s,
 * 20 s, 55 s, 2.5 min, …, capped at e^10 s ≈ 6.1 h.
 */
export function defaultRetryDelaySeconds(attempt: number): number {
  return Math.exp(Math.min(Math.max(attempt, 1), MAX_BACKOFF_EXPONENT))
}

/** A job row as the admin helpers return it; `payload` is parsed. */
export interface JobInfo {
  id: string
  task: string
  payload: unknown
  jobKey: string | null
  status: JobStatus
  runAt: string
  attempts: number
  maxAttempts: number
  leaseUntil: string | null
  lastError: string | null
  createdAt: string
  updatedAt: string
}
