import type { Executor } from '../../infra/db/schema.ts'
import { type CommitWrite, writeCommits } from './commit-statement.cross-tenant.repository.ts'

interface Pending {
  write: CommitWrite
  resolve(applied: boolean): void
  reject(error: unknown): void
}

/** Commits written in one statement, at most. */
const DEFAULT_MAX_BATCH = 128
/** Statements in flight at once, at most (each holds one pooled connection while it runs). */
const DEFAULT_MAX_IN_FLIGHT = 2

/**
 * Group commit on PostgreSQL for the commits that fit one statement (commit-at-once.ts): commits
 * handed in while a statement is in flight wait for the next, which writes them all
 * (`writeCommits`): one round trip and one WAL flush for the batch. Each caller's promise
 * settles after its statement has returned — committed and durable — with whether its
 * compare-and-set matched.
 *
 * A batch holds at most one commit per session (its session row is written once per statement),
 * and a session is in at most one statement in flight, so this process's statements never wait
 * on each other's row locks. If a statement fails, each of its commits is written again alone,
 * so one bad commit (or a deadlock with another process) fails only its own caller.
 */
export class CommitBatches {
  readonly #db: Executor
  readonly #maxBatch: number
  readonly #maxInFlight: number
  #queue: Pending[] = []
  /** Sessions with a commit in a statement in flight. */
  readonly #busy = new Set<string>()
  #inFlight = 0
  #scheduled = false

  constructor(db: Executor, options: { maxBatch?: number; maxInFlight?: number } = {}) {
    this.#db = db
    this.#maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT
  }

  /** Writes one commit; whether its compare-and-set matched (false: nothing written). */
  write(write: CommitWrite): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ write, resolve, reject })
      this.#schedule()
    })
  }

  // setImmediate, not a microtask: commits read in the same turn of the event loop join the
  // batch.
  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#maxInFlight) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      void this.#flush()
    })
  }

  /** The next batch: queued commits in order, skipping sessions already taken or in flight. */
  #take(): Pending[] {
    const batch: Pending[] = []
    const rest: Pending[] = []
    const taken = new Set<string>()
    for (const pending of this.#queue) {
      const session = pending.write.session.id
      if (batch.length < this.#maxBatch && !taken.has(session) && !this.#busy.has(session)) {
        taken.add(session)
        batch.push(pending)
      } else rest.push(pending)
    }
    this.#queue = rest
    return batch
  }

  async #flush(): Promise<void> {
    const batch = this.#take()
    if (batch.length === 0) return
    this.#inFlight++
    for (const p of batch) this.#busy.add(p.write.session.id)
    try {
      await this.#write(batch)
    } finally {
      this.#inFlight--
      for (const p of batch) this.#busy.delete(p.write.session.id)
      if (this.#queue.length > 0) this.#schedule()
    }
  }

  async #write(batch: Pending[]): Promise<void> {
    let applied: Set<number>
    try {
      applied = await writeCommits(
        this.#db,
        batch.map((p) => p.write),
      )
    } catch (error) {
      const only = batch[0]
      if (batch.length === 1 && only) return only.reject(error)
      // Each alone: only the commits that fail by themselves fail.
      await Promise.all(batch.map((p) => this.#write([p])))
      return
    }
    batch.forEach((p, i) => {
      p.resolve(applied.has(i))
    })
  }
}
