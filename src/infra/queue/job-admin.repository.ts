import { sql } from 'kysely'
import { type Clock, isoNow } from '../../shared/clock.ts'
import type { Executor, JobsTable } from '../db/schema.ts'
import { JOB_STATUSES, type JobInfo, type JobStatus } from './queue.types.ts'

/** Number of jobs in each status (every status present, zero when none). */
export async function countJobsByStatus(executor: Executor): Promise<Record<JobStatus, number>> {
  const rows = await executor
    .selectFrom('jobs')
    .select((eb) => ['status', eb.fn.countAll<number | string | bigint>().as('n')])
    .groupBy('status')
    .execute()
  const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>
  for (const row of rows) counts[row.status] = Number(row.n)
  return counts
}

/** One job, or undefined. */
export async function getJob(executor: Executor, id: string): Promise<JobInfo | undefined> {
  const row = await executor.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()
  return row && toJobInfo(row)
}

/** Jobs in `status`, oldest `run_at` first. `limit` default 100. */
export async function listJobs(
  executor: Executor,
  options: { status: JobStatus; task?: string; limit?: number },
): Promise<JobInfo[]> {
  let query = executor
    .selectFrom('jobs')
    .selectAll()
    .where('status', '=', options.status)
    .orderBy('run_at')
    .orderBy('id')
    .limit(options.limit ?? 100)
  if (options.task) query = query.where('task', '=', options.task)
  return (await query.execute()).map(toJobInfo)
}

/**
 * Puts a `failed` job back to `pending`, due now, with its attempts reset (its `last_error` is
 * kept until the next attempt). Returns false if the job is not failed.
 */
export async function retryFailedJob(
  executor: Executor,
  clock: Clock,
  id: string,
): Promise<boolean> {
  const now = isoNow(clock)
  const result = await executor
    .updateTable('jobs')
    .set({ status: 'pending', attempts: 0, run_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'failed')
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/**
 * Deletes `completed` (and, if asked, `failed`) jobs last updated before `before`; returns the
 * count. Completed jobs are kept until pruned: their `job_key` still deduplicates
 * `unsafe_dedupe` enqueues (schedule periods), so prune well after the shortest schedule interval.
 */
export async function pruneFinishedJobs(
  executor: Executor,
  before: Date,
  options: { includeFailed?: boolean } = {},
): Promise<number> {
  const statuses: JobStatus[] = options.includeFailed ? ['completed', 'failed'] : ['completed']
  const result = await executor
    .deleteFrom('jobs')
    .where('status', 'in', statuses)
    .where('updated_at', '<', before.toISOString())
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

function toJobInfo(row: JobsTable): JobInfo {
  return {
    id: row.id,
    task: row.task,
    payload: JSON.parse(row.payload),
    jobKey: row.job_key,
    status: row.status,
    runAt: row.run_at,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    leaseUntil: row.lease_until,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/**
 * Jobs that are due but nobody is running: `running` ones whose lease ran out (their worker died
 * and no worker has taken them again) and `pending` ones due more than `overdueSeconds` ago (no
 * worker is polling). Oldest first; `limit` default 100.
 */
export async function listStuckJobs(
  executor: Executor,
  now: Date,
  options: { overdueSeconds?: number; limit?: number } = {},
): Promise<JobInfo[]> {
  const nowIso = now.toISOString()
  const overdue = new Date(now.getTime() - (options.overdueSeconds ?? 300) * 1000).toISOString()
  const rows = await executor
    .selectFrom('jobs')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'running'), eb('lease_until', '<', nowIso)]),
        eb.and([eb('status', '=', 'pending'), eb('run_at', '<', overdue)]),
      ]),
    )
    .orderBy('run_at')
    .orderBy('id')
    .limit(options.limit ?? 100)
    .execute()
  return rows.map(toJobInfo)
}

/**
 * An operator's "run it again now": a `failed` job goes back to `pending` with its attempts
 * reset; a `running` job whose lease ran out is released (its token cleared, so its old worker
 * can no longer write) and due now; a `pending` job is made due now. A running job that still
 * holds its lease, or a completed one, is left alone. Returns the status the job had, or null
 * when nothing changed.
 */
export async function retryJobNow(
  executor: Executor,
  clock: Clock,
  id: string,
): Promise<JobStatus | null> {
  const job = await executor
    .selectFrom('jobs')
    .select(['status', 'lease_until'])
    .where('id', '=', id)
    .executeTakeFirst()
  if (!job) return null
  const now = isoNow(clock)
  if (job.status === 'failed') return (await retryFailedJob(executor, clock, id)) ? 'failed' : null
  if (job.status === 'pending' || job.status === 'running') {
    const result = await executor
      .updateTable('jobs')
      .set((eb) => ({
        status: 'pending',
        run_at: now,
        lease_until: null,
        lease_token: null,
        // An interrupted run is not counted, and a last attempt gets its chance.
        attempts: eb
          .case()
          .when('status', '=', 'running')
          .then(sql<number>`case when attempts > 0 then attempts - 1 else 0 end`)
          .else(eb.ref('attempts'))
          .end(),
        updated_at: now,
      }))
      .where('id', '=', id)
      .where('status', '=', job.status)
      .where((eb) => eb.or([eb('status', '=', 'pending'), eb('lease_until', '<', now)]))
      .executeTakeFirst()
    return result.numUpdatedRows === 1n ? job.status : null
  }
  return null
}
