import { sql } from 'kysely'
import type { Db } from '../db/database.ts'

/** A job's state as the metrics name it: `due` and `scheduled` split `pending` at now. */
export type QueueState = 'due' | 'scheduled' | 'running' | 'failed'

export const QUEUE_STATES: readonly QueueState[] = ['due', 'scheduled', 'running', 'failed']

export interface QueueStat {
  task: string
  /** Jobs per state; a state without jobs is 0. */
  jobs: Record<QueueState, number>
  /** How long the oldest due job has waited for a worker, in seconds; 0 when none is due. */
  oldestDueAgeSeconds: number
}

/**
 * The queue as it is now, per task, read from the database on every scrape (nothing is kept in
 * memory, so every process reports the same figures). One grouped query over the rows that are
 * not completed, found by a range on `jobs_ready (status, run_at, id)`; completed jobs, the bulk
 * of the table, are never read. Its cost grows with the backlog, which is what it reports.
 */
export async function readQueueStats(db: Db, now: Date): Promise<QueueStat[]> {
  const at = now.toISOString()
  const rows = await db.kysely
    .selectFrom('jobs')
    .select((eb) => [
      'task',
      'status',
      eb.fn.countAll<number | string>().as('jobs'),
      sql<number | string>`sum(case when run_at <= ${at} then 1 else 0 end)`.as('due'),
      sql<string | null>`min(case when run_at <= ${at} then run_at end)`.as('oldest_due'),
    ])
    .where('status', 'in', ['pending', 'running', 'failed'])
    .groupBy(['task', 'status'])
    .execute()
  const byTask = new Map<string, QueueStat>()
  for (const row of rows) {
    const stat = byTask.get(row.task) ?? {
      task: row.task,
      jobs: { due: 0, scheduled: 0, running: 0, failed: 0 },
      oldestDueAgeSeconds: 0,
    }
    const count = Number(row.jobs)
    if (row.status === 'pending') {
      const due = Number(row.due)
      stat.jobs.due += due
      stat.jobs.scheduled += count - due
      if (row.oldest_due) {
        stat.oldestDueAgeSeconds = Math.max(0, (now.getTime() - Date.parse(row.oldest_due)) / 1000)
      }
    } else if (row.status === 'running' || row.status === 'failed') {
      stat.jobs[row.status] += count
    }
    byTask.set(row.task, stat)
  }
  return [...byTask.values()]
}
