import { Worker } from 'node:worker_threads'

/** How often the checkpointer copies the WAL into the database file. */
const DEFAULT_INTERVAL_MS = 200

/**
 * WAL pages the main connection lets pile up before it checkpoints by itself: a backstop for a
 * checkpointer that cannot keep up (long readers) or has died. SQLite's default is 1 000.
 */
export const BACKSTOP_WAL_PAGES = 20_000

export interface WalCheckpointer {
  /**
   * Stops the thread and resolves once it has exited, its connection closed. Until then that
   * connection can still create or remove the -wal and -shm files, so whoever closes the
   * database (and may delete its folder next) must wait for this first.
   */
  stop(): Promise<void>
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
  // Created now: a thread that already died (an error) must not make stop() wait forever.
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  let stopping: Promise<void> | undefined
  return {
    stop() {
      stopping ??= (async () => {
        // Referenced again while it winds down: an unreferenced thread does not keep the event
        // loop alive, and a process with nothing else left would exit before 'exit' arrives.
        worker.ref()
        worker.postMessage('stop')
        await exited
      })()
      return stopping
    },
  }
}
