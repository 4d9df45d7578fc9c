import { type Clock, isoNow } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import type { Executor, JobsTable } from '../db/schema.ts'
import { DEFAULT_MAX_ATTEMPTS, type EnqueueSpec } from './queue.types.ts'

/** Rounds of upsert → "detach the old holder of the key" before giving up (only races loop). */
const KEY_ROUNDS = 5

/**
 * Adds a job and returns its id (for a `jobKey` that is already held, the id of the job that now
 * carries the request, see `JobKeyMode`). Pass the caller's transaction as `executor` so the job
 * exists only if that transaction commits.
 *
 * Every statement here is a single atomic statement, so the function is correct inside or outside
 * a transaction and never holds a SQLite write lock across an `await` of its own.
 */
export async function enqueueJob(
  executor: Executor,
  clock: Clock,
  spec: EnqueueSpec,
): Promise<string> {
  const maxAttempts = spec.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
  if (!spec.task) throw new Error('enqueue: task is required')
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new Error(`enqueue: maxAttempts must be a positive integer, got ${maxAttempts}`)
  }
  const now = isoNow(clock)
  const row: JobsTable = {
    id: newId('job'),
    task: spec.task,
    payload: JSON.stringify(spec.payload ?? null),
    job_key: spec.jobKey ?? null,
    run_at: spec.runAt ? spec.runAt.toISOString() : now,
    attempts: 0,
    max_attempts: maxAttempts,
    lease_until: null,
    lease_token: null,
    last_error: null,
    status: 'pending',
    created_at: now,
    updated_at: now,
  }
  const key = spec.jobKey
  if (key === undefined) {
    await executor.insertInto('jobs').values(row).execute()
    return row.id
  }
  const mode = spec.jobKeyMode ?? 'replace'
  for (let round = 0; round < KEY_ROUNDS; round++) {
    if (mode === 'unsafe_dedupe') {
      const inserted = await executor
        .insertInto('jobs')
        .values(row)
        .onConflict((oc) => oc.column('job_key').doNothing())
        .returning('id')
        .executeTakeFirst()
      if (inserted) return inserted.id
      const holder = await executor
        .selectFrom('jobs')
        .select('id')
        .where('job_key', '=', key)
        .executeTakeFirst()
      if (holder) return holder.id
      continue
    }
    const upserted = await executor
      .insertInto('jobs')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('job_key')
          .doUpdateSet((eb) => ({
            task: eb.ref('excluded.task'),
            payload: eb.ref('excluded.payload'),
            max_attempts: eb.ref('excluded.max_attempts'),
            run_at:
              mode === 'preserve_run_at'
                ? eb
                    .case()
                    .when('jobs.attempts', '=', 0)
                    .then(eb.ref('jobs.run_at'))
                    .else(eb.ref('excluded.run_at'))
                    .end()
                : eb.ref('excluded.run_at'),
            attempts: 0,
            last_error: null,
            updated_at: now,
          }))
          .where('jobs.status', '=', 'pending'),
      )
      .returning('id')
      .executeTakeFirst()
    if (upserted) return upserted.id
    // The key is held by a running, completed or failed job: that job gives the key up. A running
    // one is superseded, so a failure of it must not be retried (graphile-worker does the same).
    await executor
      .updateTable('jobs')
      .set((eb) => ({
        job_key: null,
        attempts: eb
          .case()
          .when('status', '=', 'running')
          .then(eb.ref('max_attempts'))
          .else(eb.ref('attempts'))
          .end(),
        updated_at: now,
      }))
      .where('job_key', '=', key)
      .where('status', '!=', 'pending')
      .execute()
  }
  throw new Error(`enqueue: could not place job key ${key} (contended by concurrent writers)`)
}
