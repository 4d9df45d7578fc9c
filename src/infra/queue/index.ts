/**
 * The table-backed job queue (DESIGN §9), modelled on graphile-worker: `createQueue` to enqueue
 * (inside the caller's transaction), define schedules and inspect jobs; `Worker` to run them.
 */
export type { ScheduledPayload } from './job-schedule.repository.ts'
export { createQueue, type Queue, type QueueOptions } from './queue.ts'
export {
  DEFAULT_LEASE_SECONDS,
  DEFAULT_MAX_ATTEMPTS,
  defaultRetryDelaySeconds,
  type EnqueueSpec,
  JOB_STATUSES,
  type JobInfo,
  type JobKeyMode,
  type JobStatus,
  type TaskContext,
  type TaskDefinition,
  type TaskHandler,
  type TaskRegistry,
} from './queue.types.ts'
export { Worker, type WorkerOptions } from './worker.ts'
export type { WorkerLogger } from './worker-logger.ts'
