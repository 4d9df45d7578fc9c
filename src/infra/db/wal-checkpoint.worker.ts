// The WAL checkpointer's thread (see wal-checkpointer.ts): its own connection to the database,
// checkpointing passively on a timer until told to stop.
import { DatabaseSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'

const { path, intervalMs } = workerData as { path: string; intervalMs: number }
const db = new DatabaseSync(path)
db.exec('PRAGMA busy_timeout = 1000')
db.exec('PRAGMA synchronous = NORMAL')
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')

function run(): void {
  try {
    checkpoint.get()
  } catch {
    // Busy or locked: the next tick tries again; the main connection's backstop covers the rest.
  }
}

const timer = setInterval(run, intervalMs)
parentPort?.once('message', () => {
  clearInterval(timer)
  db.close()
  parentPort?.close()
})
