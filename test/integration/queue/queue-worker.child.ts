/**
 * A worker process for the multi-process and SIGKILL tests (not a test file itself).
 * Usage: node queue-worker.child.ts <databaseUrl> <dir> <leaseSeconds>
 * Prints `ready` once polling; SIGTERM stops it gracefully.
 */
import { openDatabase } from '../../../src/infra/db/database.ts'
import { Worker } from '../../../src/infra/queue/index.ts'
import { sharedTestTasks, silentLogger } from './queue-test-helpers.ts'

const [url, dir, lease] = process.argv.slice(2)
if (!url || !dir || !lease) throw new Error('usage: queue-worker.child.ts <url> <dir> <lease>')
const db = openDatabase(url, { poolSize: 4 })
const worker = new Worker(db, sharedTestTasks(db, dir, `pid-${process.pid}`, Number(lease)), {
  pollIntervalMs: 20,
  leaseSeconds: Number(lease),
  logger: silentLogger,
})
worker.start()
process.stdout.write('ready\n')
process.once('SIGTERM', () => {
  worker
    .stop({ timeoutMs: 5000 })
    .then(() => db.close())
    .then(() => process.exit(0))
    .catch((err: unknown) => {
      console.error(err)
      process.exit(1)
    })
})
