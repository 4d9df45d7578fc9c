/**
 * A real worker process for the fault and multi-worker tests (not a test file itself): the same
 * tasks and schedules as `courseport worker`, with the test CA and a 127.0.0.1 allowlist given
 * to this instance as options.
 * Usage: node webhook-worker.child.ts <databaseUrl> <dataDir> <json options>
 * Prints `ready` once polling; SIGTERM stops it gracefully.
 */
import { loadConfig } from '../../../src/config.ts'
import { createQueue, Worker } from '../../../src/infra/queue/index.ts'
import { schedules, taskRegistry } from '../../../src/jobs/registry.ts'
import { createContext } from '../../../src/main/context.ts'
import { TEST_CA } from '../../unit/http-egress/tls-receiver.ts'

interface ChildOptions {
  timeoutMs: number
  leaseMarginSeconds: number
  senderBudgetMs?: number
  concurrency?: number
  env?: Record<string, string>
}

const [url, dataDir, json] = process.argv.slice(2)
if (!url || !dataDir || !json) throw new Error('usage: webhook-worker.child.ts <url> <dir> <json>')
const options = JSON.parse(json) as ChildOptions
const config = loadConfig({
  DATA_DIR: dataDir,
  DATABASE_URL: url,
  SECRET_KEY: 'test-secret-key-test-secret-key-0123456789',
  LOG_LEVEL: 'silent',
  PUBLIC_URL: 'http://127.0.0.1:18080',
  CONTENT_URL: 'http://127.0.0.1:18081',
  CONTENT_ORIGINS: 'single',
  EVENT_FANOUT_INTERVAL: '1',
  ...options.env,
})
const ctx = await createContext(config, {
  migrate: false,
  webhooks: {
    ca: TEST_CA,
    allowAddresses: ['127.0.0.1'],
    timeoutMs: options.timeoutMs,
    leaseMarginSeconds: options.leaseMarginSeconds,
    senderBudgetMs: options.senderBudgetMs,
  },
})
const queue = createQueue(ctx.db, { clock: ctx.clock })
for (const s of schedules(config)) await queue.defineSchedule(s.name, s.task, s.intervalSeconds)
const worker = new Worker(ctx.db, taskRegistry(ctx), {
  concurrency: options.concurrency ?? 4,
  pollIntervalMs: 50,
  logger: { info() {}, warn() {}, error: (obj, msg) => console.error(`[child] ${msg}`, obj) },
})
worker.start()
process.stdout.write('ready\n')
process.once('SIGTERM', () => {
  worker
    .stop({ timeoutMs: 5000 })
    .then(() => ctx.close())
    .then(() => process.exit(0))
    .catch((err: unknown) => {
      console.error(err)
      process.exit(1)
    })
})
