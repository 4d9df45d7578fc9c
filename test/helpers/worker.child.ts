/**
 * `courseport worker` as a child process for multi-process tests (not a test file itself): the
 * same configuration (from the environment), scratch folder, schedules, tasks and lease as
 * src/main/worker.ts, plus what only tests may give the webhook sender — the test CA and short
 * delivery timings — as options to this instance, never through the environment.
 * Usage: node worker.child.ts '<json WebhookRuntimeOptions without ca>'
 * Logs `courseport worker started` once polling; SIGTERM stops it as the real command does.
 */
import { loadConfig } from '../../src/config.ts'
import { createContext } from '../../src/main/context.ts'
import { useProcessScratch } from '../../src/main/scratch.ts'
import { startWorker } from '../../src/main/worker.ts'
import type { WebhookRuntimeOptions } from '../../src/modules/webhooks/index.ts'
import { TEST_CA } from '../unit/http-egress/tls-receiver.ts'

const webhooks = JSON.parse(process.argv[2] ?? '{}') as Omit<WebhookRuntimeOptions, 'ca'>
const config = loadConfig(process.env)
const scratch = await useProcessScratch()
const ctx = await createContext(config, { webhooks: { ...webhooks, ca: TEST_CA } })
const log =
  (level: string) =>
  (obj: unknown, msg?: string): void => {
    process.stderr.write(`[worker ${process.pid}] ${level} ${msg ?? ''} ${JSON.stringify(obj)}\n`)
  }
const worker = await startWorker(ctx, { info() {}, warn: log('warn'), error: log('error') })
process.stdout.write(`courseport worker started (pid ${process.pid})\n`)
process.once('SIGTERM', () => {
  ctx.beginShutdown()
  worker
    .stop()
    .then(() => ctx.close())
    .then(() => scratch.dispose())
    .then(() => process.exit(0))
    .catch((err: unknown) => {
      console.error(err)
      process.exit(1)
    })
})
