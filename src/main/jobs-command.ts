import type { Db } from '../infra/db/database.ts'
import { createQueue, JOB_STATUSES, type JobInfo, type JobStatus } from '../infra/queue/index.ts'
import { UsageError } from './usage-error.ts'

type WithDatabase = <T>(fn: (db: Db) => Promise<T>) => Promise<T>

const STATES = [...JOB_STATUSES, 'stuck'] as const

function row(job: JobInfo): string {
  const error = job.lastError ? `\t${job.lastError.split('\n')[0]?.slice(0, 120)}` : ''
  return `${job.id}\t${job.task}\t${job.status}\t${job.attempts}/${job.maxAttempts}\t${job.runAt}${error}`
}

/**
 * `courseport jobs list [--state failed|stuck|pending|running|completed] [--limit N] [--json]`
 * (default state: failed) and `courseport jobs retry JOB_ID` (a failed, stuck or pending job runs
 * again at once). "Stuck" is work nobody is doing: a running job whose lease ran out, or a pending
 * one overdue by more than five minutes (no worker polling).
 */
export async function jobsCommand(
  sub: string | undefined,
  positionals: string[],
  values: { state?: string; limit?: string; json?: boolean },
  withDatabase: WithDatabase,
): Promise<void> {
  const json = values.json ?? false
  if (sub === 'list') {
    const state = values.state ?? 'failed'
    if (!(STATES as readonly string[]).includes(state)) {
      throw new UsageError(`jobs list --state must be one of ${STATES.join(', ')}`)
    }
    const limit = values.limit === undefined ? 100 : Number(values.limit)
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a number ≥ 1')
    const jobs = await withDatabase((db) => {
      const queue = createQueue(db)
      return state === 'stuck'
        ? queue.jobs.listStuck({ limit })
        : queue.jobs.list({ status: state as JobStatus, limit })
    })
    const text = jobs.length ? jobs.map(row).join('\n') : `no ${state} jobs`
    process.stdout.write(`${json ? JSON.stringify(jobs) : text}\n`)
    return
  }
  if (sub === 'retry') {
    const id = positionals[0]
    if (!id) throw new UsageError('jobs retry needs JOB_ID')
    const was = await withDatabase((db) => createQueue(db).jobs.retryNow(id))
    if (was === null) {
      process.stderr.write(
        `job ${id} was not retried: it does not exist, is completed, or is running under a live lease\n`,
      )
      process.exitCode = 1
    }
    const text = was === null ? '' : `job ${id} (${was}) is due now`
    process.stdout.write(`${json ? JSON.stringify({ id, retried: was !== null, was }) : text}\n`)
    return
  }
  throw new UsageError('jobs needs list or retry')
}
