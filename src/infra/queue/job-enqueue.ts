import { type Clock, isoNow } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import type { Executor, JobsTable } from '../db/schema.ts'
import { DEFAULT_MAX_ATTEMPTS, type EnqueueSpec, SUPERSEDED_NOTE } from './queue.types.ts'

/** Rounds of upsert → "detach the old holder of the key" before giving up (only races loop). */
const KEY_ROUNDS = 5

/**
 * Adds a job and returns its id (for a `jobKey` that is already held, the id of the job that now
 * carries the request, see `JobKeyMode`). Pass the caller's transaction as `executor` so the job
 * exists only if that transaction commits.
 *
 * Every statement here is a single atomic statement, so the function is correct inside or outside
 * a transaction and never holds a SQLite write lock across an `await` of its own. A keyed enqueue
 * loops only when a concurrent writer moves the key between two of its statements.
 */
export async function enqueueJob(
  executor: Executor,
  clock: Clock,
  spec: EnqueueSpec,
): Promise<string> {
  const row = newJobRow(clock, spec)
  const key = spec.jobKey
  if (key === undefined) {
    await executor.insertInto('jobs').values(row).execute()
    return row.id
  }
  const mode = spec.jobKeyMode ?? 'replace'
  for (let round = 0; round < KEY_ROUNDS; round++) {
    if (mode === 'unsafe_dedupe') {
      const id = await insertOrFindHolder(executor, row, key)
      if (id) return id
      continue
    }
    const id = await upsertPendingHolder(executor, row, mode)
    if (id) return id
    await detachNonPendingHolder(executor, key, row.updated_at)
  }
  throw new Error(`enqueue: could not place job key ${key} (contended by concurrent writers)`)
}

/** The row to insert, with the spec's defaults applied; throws on an invalid spec. */
function newJobRow(clock: Clock, spec: EnqueueSpec): JobsTable {
  const maxAttempts = spec.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
  if (!spec.task) throw new Error('enqueue: task is required')
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new Error(`enqueue: maxAttempts must be a positive integer, got ${maxAttempts}`)
  }
  const now = isoNow(clock)
  return {
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
}

/**
 * `unsafe_dedupe`: inserts unless any job holds the key, whatever its status; returns the id of
 * the new job or of the holder, or undefined when the holder vanished in between (try again).
 */
async function insertOrFindHolder(
  executor: Executor,
  row: JobsTable,
  key: string,
): Promise<string | undefined> {
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
  return holder?.id
}

/**
 * `replace` / `preserve_run_at`: inserts, or overwrites the pending job holding the key (its
 * attempts and error reset; `preserve_run_at` keeps an unattempted job's `run_at`). Undefined
 * when the key is held by a job that is not pending.
 */
async function upsertPendingHolder(
  executor: Executor,
  row: JobsTable,
  mode: 'replace' | 'preserve_run_at',
): Promise<string | undefined> {
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
          updated_at: row.updated_at,
        }))
        .where('jobs.status', '=', 'pending'),
    )
    .returning('id')
    .executeTakeFirst()
  return upserted?.id
}

/**
 * A running, completed or failed job gives its key up, so a new job can take it. A running one is
 * superseded: a failure of it must not be retried (its attempts are raised to its maximum), as in
 * graphile-worker, and a lease of it running out is not a failure (SUPERSEDED_NOTE).
 */
async function detachNonPendingHolder(executor: Executor, key: string, now: string) {
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
      last_error: eb
        .case()
        .when('status', '=', 'running')
        .then(SUPERSEDED_NOTE)
        .else(eb.ref('last_error'))
        .end(),
      updated_at: now,
    }))
    .where('job_key', '=', key)
    .where('status', '!=', 'pending')
    .execute()
}
