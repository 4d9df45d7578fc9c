import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { type Db, openDatabase } from '../../../src/infra/db/database.ts'
import type { TaskRegistry, WorkerLogger } from '../../../src/infra/queue/index.ts'
import type { TestDatabase } from '../../helpers/database.ts'

/** Workers in tests report failures through the jobs table; keep the output readable. */
export const silentLogger: WorkerLogger = { info() {}, warn() {}, error() {} }

/** Polls `check` every 20 ms until it returns true; throws after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** Tables the test tasks write their side effects to (test-only, created on demand). */
export async function createSideEffectTables(db: Db): Promise<void> {
  await sql`create table if not exists queue_test_runs (job_id text not null, worker text not null)`.execute(
    db.kysely,
  )
  await sql`create table if not exists queue_test_effects (job_id text primary key, worker text not null)`.execute(
    db.kysely,
  )
}

export async function runsPerJob(db: Db): Promise<Map<string, number>> {
  const { rows } = await sql<{ job_id: string; n: number | string }>`
    select job_id, count(*) as n from queue_test_runs group by job_id`.execute(db.kysely)
  return new Map(rows.map((r) => [r.job_id, Number(r.n)]))
}

/**
 * Tasks shared by the test process and the child worker processes:
 * - `test.record` inserts one row per execution into queue_test_runs;
 * - `test.block` marks its start with a file `started-<jobId>-<worker>` in `dir`, blocks until a
 *   file `release` appears there, then writes its effect once (primary key on the job id).
 */
export function sharedTestTasks(db: Db, dir: string, worker: string, leaseSeconds: number) {
  const tasks: TaskRegistry = {
    'test.record': async (_payload, ctx) => {
      await sql`insert into queue_test_runs (job_id, worker) values (${ctx.jobId}, ${worker})`.execute(
        db.kysely,
      )
      await sleep(1)
    },
    'test.block': {
      leaseSeconds,
      handler: async (_payload, ctx) => {
        writeFileSync(join(dir, `started-${ctx.jobId}-${worker}`), '')
        while (!existsSync(join(dir, 'release'))) await sleep(20)
        await sql`insert into queue_test_effects (job_id, worker) values (${ctx.jobId}, ${worker})`.execute(
          db.kysely,
        )
      },
    },
  }
  return tasks
}

/** The pinned Node 26 (DESIGN §1), which runs TypeScript directly. */
export const NODE = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url))
/** The worker process script used by the multi-process and SIGKILL tests. */
export const CHILD = fileURLToPath(new URL('./queue-worker.child.ts', import.meta.url))

/** Starts a worker process on `url`; resolves once it polls. */
export async function spawnWorker(url: string, dir: string, leaseSeconds: number) {
  const child = spawn(NODE, [CHILD, taggedUrl(url), dir, String(leaseSeconds)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`worker child exited early (${code})`)))
    child.stdout?.once('data', () => resolve())
  })
  child.removeAllListeners('exit')
  return child
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}

const TEST_APPLICATION = 'cp-queue-test'

/**
 * `url` with a PostgreSQL application_name that marks the connections of workers (in this process
 * or in child processes), so a test can wait until the server has seen them all close.
 */
export function taggedUrl(url: string): string {
  if (!/^postgres(ql)?:\/\//.test(url)) return url
  const tagged = new URL(url)
  tagged.searchParams.set('application_name', TEST_APPLICATION)
  return tagged.toString()
}

const ownConnections = new WeakMap<TestContext, Db[]>()

/**
 * A connection of the test's own for a worker. When the test ends they are closed and, on
 * PostgreSQL, the test waits until the server has ended every tagged backend: a pg pool's end()
 * resolves before its sockets are closed, and the suite drops the database with (force) right
 * after, which would otherwise hit a connection still closing.
 */
export function ownConnection(t: TestContext, target: TestDatabase): Db {
  const db = openDatabase(taggedUrl(target.url), { poolSize: 4 })
  const list = ownConnections.get(t)
  if (list) {
    list.push(db)
    return db
  }
  ownConnections.set(t, [db])
  t.after(async () => {
    for (const handle of ownConnections.get(t) ?? []) await handle.close()
    await waitForTaggedConnectionsToEnd(target)
  })
  return db
}

/** On PostgreSQL, waits until no backend of this database carries the test tag. */
export async function waitForTaggedConnectionsToEnd(target: TestDatabase): Promise<void> {
  if (target.dialect !== 'postgres') return
  await waitFor('worker connections to end', async () => {
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from pg_stat_activity
      where datname = current_database() and application_name = ${TEST_APPLICATION}`.execute(
      target.db.kysely,
    )
    return Number(rows[0]?.n) === 0
  })
}
