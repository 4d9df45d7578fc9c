/**
 * The compare-and-set loop navigation runs in: each run reads the attempt and writes its new
 * tracking state in one transaction, only if the state's version is still the one it read.
 */
import type { Kysely } from 'kysely'
import type { Database, Executor } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'

/**
 * Runs after losing the compare-and-set to another writer (or a PostgreSQL deadlock /
 * serialization failure), at most (then 409 conflict).
 */
const MAX_RUNS = 5

/** Another writer moved the tracking state after this run read it: run again on its state. */
export class StateMoved extends Error {}

/**
 * PostgreSQL aborted the transaction for a concurrent one (serialization_failure 40001,
 * deadlock_detected 40P01): nothing was written, so the request runs again like a lost
 * compare-and-set.
 */
function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === '40001' || code === '40P01'
}

/**
 * Runs `once` in a transaction, again (on the state the winner wrote) when it throws StateMoved
 * or PostgreSQL aborts it for a concurrent transaction; `at` is read afresh for each run.
 */
export async function runUntilStateHolds<T>(
  db: Kysely<Database>,
  clock: Clock,
  once: (trx: Executor, at: string) => Promise<T>,
): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      const at = clock.now().toISOString()
      return await db.transaction().execute((trx) => once(trx, at))
    } catch (err) {
      if (!(err instanceof StateMoved) && !isTransient(err)) throw err
      if (run >= MAX_RUNS) {
        throw new AppError('conflict', 'The attempt kept changing at the same time; retry')
      }
    }
  }
}
