import { Worker } from 'node:worker_threads'

/** How often the checkpointer copies the WAL into the database file. */
const DEFAULT_INTERVAL_MS = 200

/**
 * WAL pages the main connection lets pile up before it checkpoints by itself: a backstop for a
 * checkpointer that cannot keep up (long readers) or has died. SQLite's default is 1 000.
 */
export const BACKSTOP_WAL_PAGES = 20_000

export interface WalCheckpointer {
  stop(): void
}

/**
 * Checkpoints a SQLite database's write-ahead log from a worker thread. By default SQLite
 * checkpoints inside whichever COMMIT crosses 1 000 WAL pages: that COMMIT copies the pages and
 * fsyncs the database file on the event loop, a stall every few hundred runtime commits. Passive
 * checkpoints on another connection never block a writer, so the event loop only ever appends.
 */
export function startWalCheckpointer(
  path: string,
  intervalMs = DEFAULT_INTERVAL_MS,
): WalCheckpointer {
  const worker = new Worker(new URL('./wal-checkpoint.worker.ts', import.meta.url), {
    workerData: { path, intervalMs },
  })
  // Never keeps the process alive, and a failure only leaves the backstop in charge.
  worker.unref()
  worker.on('error', () => {})
  return {
    stop: () => worker.postMessage('stop'),
  }
}
