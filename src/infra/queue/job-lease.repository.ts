import { sql } from 'kysely'
import { randomBase62 } from '../../shared/ids.ts'
import type { Db } from '../db/database.ts'
import { type JobStatus, SUPERSEDED_NOTE } from './queue.types.ts'

/** A job reserved for one worker until `leaseUntil`; every later write must present `leaseToken`. */
export interface ClaimedJob {
  id: string
  task: string
  payload: string
  /** Including this one (attempts are counted when claimed, as in graphile-worker). */
  attempts: number
  maxAttempts: number
  leaseToken: string
  leaseUntil: string
}

/**
 * Reserves up to `limit` due jobs of the given tasks (task → lease seconds) in ONE statement:
 * pending jobs whose `run_at` has come, and running jobs whose lease has expired (their worker
 * died or is too slow). Each claim sets `lease_until = now + lease` and a fresh random
 * `lease_token` (a per-claim nonce plus the job id, so it is unique per job and per claim).
 *
 * PostgreSQL: the candidate rows are chosen with `FOR UPDATE SKIP LOCKED`, so concurrent workers
 * skip each other's rows instead of waiting. SQLite: the single UPDATE takes the database write
 * lock when it starts (like BEGIN IMMEDIATE), so selection and update are atomic. One statement
 * rather than BEGIN … SELECT … UPDATE … COMMIT matters on SQLite: node:sqlite waits for a lock
 * synchronously, so two connections in one process deadlock (until busy_timeout) if one holds the
 * lock across an `await` while the other asks for it.
 *
 * `excludeIds`: jobs this worker is still running (an expired lease of its own is left to others).
 */
export async function claimJobs(
  db: Db,
  now: Date,
  leaseSecondsByTask: ReadonlyMap<string, number>,
  limit: number,
  excludeIds: readonly string[] = [],
): Promise<ClaimedJob[]> {
  const tasks = [...leaseSecondsByTask.keys()]
  if (tasks.length === 0 || limit < 1) return []
  const nowIso = now.toISOString()
  const nonce = `${randomBase62(22)}:`
  const rows = await db.kysely
    .with('next', (qc) => {
      const q = qc
        .selectFrom('jobs')
        .select('id')
        .where('task', 'in', tasks)
        .$if(excludeIds.length > 0, (qb) => qb.where('id', 'not in', excludeIds))
        .whereRef('attempts', '<', 'max_attempts')
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', nowIso)]),
            eb.and([eb('status', '=', 'running'), eb('lease_until', '<=', nowIso)]),
          ]),
        )
        .orderBy('run_at')
        .orderBy('id')
        .limit(limit)
      return db.dialect === 'postgres' ? q.forUpdate().skipLocked() : q
    })
    .updateTable('jobs')
    .from('next')
    .set((eb) => ({
      status: 'running',
      attempts: eb('jobs.attempts', '+', 1),
      lease_until: leaseUntilExpression(now, leaseSecondsByTask),
      lease_token: sql<string>`${nonce} || jobs.id`,
      updated_at: nowIso,
    }))
    .whereRef('jobs.id', '=', 'next.id')
    .returning([
      'jobs.id',
      'jobs.task',
      'jobs.payload',
      'jobs.attempts',
      'jobs.max_attempts',
      'jobs.lease_token',
      'jobs.lease_until',
    ])
    .execute()
  return rows.map((r) => ({
    id: r.id,
    task: r.task,
    payload: r.payload,
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    leaseToken: r.lease_token ?? '',
    leaseUntil: r.lease_until ?? '',
  }))
}

/** `now + lease of the row's task`, as one CASE over groups of tasks sharing a lease length. */
function leaseUntilExpression(now: Date, leaseSecondsByTask: ReadonlyMap<string, number>) {
  const byUntil = new Map<string, string[]>()
  for (const [task, seconds] of leaseSecondsByTask) {
    const until = new Date(now.getTime() + seconds * 1000).toISOString()
    byUntil.set(until, [...(byUntil.get(until) ?? []), task])
  }
  const groups = [...byUntil]
  const [last, ...rest] = groups.reverse()
  if (!last) throw new Error('no tasks')
  if (rest.length === 0) return sql<string>`${last[0]}`
  const whens = rest.map(
    ([until, tasks]) => sql`when jobs.task in (${sql.join(tasks)}) then ${until}`,
  )
  return sql<string>`case ${sql.join(whens, sql` `)} else ${last[0]} end`
}

/** Marks the job completed if `token` still holds its lease; false means the result is stale. */
export async function completeJob(db: Db, now: Date, id: string, token: string): Promise<boolean> {
  const result = await db.kysely
    .updateTable('jobs')
    .set({
      status: 'completed',
      lease_until: null,
      lease_token: null,
      updated_at: now.toISOString(),
    })
    .where('id', '=', id)
    .where('lease_token', '=', token)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/**
 * Records a failed attempt if `token` still holds the lease: back to `pending` at `retryAt`, or
 * `failed` once the attempts are used up. `last_error` keeps the latest message.
 */
export async function failJob(
  db: Db,
  now: Date,
  id: string,
  token: string,
  error: string,
  retryAt: Date,
): Promise<boolean> {
  const result = await db.kysely
    .updateTable('jobs')
    .set((eb) => ({
      status: sql<JobStatus>`case when attempts >= max_attempts then 'failed' else 'pending' end`,
      run_at: eb
        .case()
        .when('attempts', '>=', eb.ref('max_attempts'))
        .then(eb.ref('run_at'))
        .else(retryAt.toISOString())
        .end(),
      last_error: error,
      lease_until: null,
      lease_token: null,
      updated_at: now.toISOString(),
    }))
    .where('id', '=', id)
    .where('lease_token', '=', token)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/**
 * Gives a job back without counting the interrupted attempt (a stopping worker): it is pending and
 * due at once, so another worker can take it on its next poll.
 */
export async function releaseJob(db: Db, now: Date, id: string, token: string): Promise<boolean> {
  const result = await db.kysely
    .updateTable('jobs')
    .set((eb) => ({
      status: 'pending',
      attempts: eb('attempts', '-', 1),
      lease_until: null,
      lease_token: null,
      updated_at: now.toISOString(),
    }))
    .where('id', '=', id)
    .where('lease_token', '=', token)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/**
 * Running jobs whose lease expired on their last allowed attempt can never be claimed again:
 * mark them failed (clearing the token, so a very late completion is ignored), or completed when
 * a newer job with their key superseded them (its run does their work). Returns the count failed.
 */
export async function failExpiredFinalAttempts(db: Db, now: Date): Promise<number> {
  const nowIso = now.toISOString()
  const expired = db.kysely
    .updateTable('jobs')
    .where('status', '=', 'running')
    .where('lease_until', '<=', nowIso)
    .whereRef('attempts', '>=', 'max_attempts')
  await expired
    .set({
      status: 'completed',
      last_error: `${SUPERSEDED_NOTE}; its lease ran out`,
      lease_until: null,
      lease_token: null,
      updated_at: nowIso,
    })
    .where('last_error', '=', SUPERSEDED_NOTE)
    .execute()
  const result = await expired
    .set({
      status: 'failed',
      last_error: 'lease expired on the last attempt (worker crashed or ran past its lease)',
      lease_until: null,
      lease_token: null,
      updated_at: nowIso,
    })
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * The heartbeat: extends a running job's lease to `leaseUntil` if `token` still holds it. False
 * means the lease was taken over (it ran out and another worker claimed the job, or an operator
 * released it): the caller must stop working on the job and write nothing more.
 */
export async function renewLease(
  db: Db,
  now: Date,
  id: string,
  token: string,
  leaseUntil: Date,
): Promise<boolean> {
  const result = await db.kysely
    .updateTable('jobs')
    .set({ lease_until: leaseUntil.toISOString(), updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('lease_token', '=', token)
    .where('status', '=', 'running')
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}
