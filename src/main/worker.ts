import type { Config } from '../config.ts'
import type { AppContext } from '../context.ts'
import { createQueue, Worker, type WorkerLogger } from '../infra/queue/index.ts'
import { schedules, taskRegistry } from '../jobs/registry.ts'
import { createContext } from './context.ts'

/** Starts a job worker over the context's database; `stop()` finishes or releases its jobs. */
export async function startWorker(ctx: AppContext, logger: WorkerLogger): Promise<Worker> {
  const queue = createQueue(ctx.db, { clock: ctx.clock })
  for (const schedule of schedules(ctx.config)) {
    await queue.defineSchedule(schedule.name, schedule.task, schedule.intervalSeconds)
  }
  const worker = new Worker(ctx.db, taskRegistry(ctx), {
    concurrency: ctx.config.worker.concurrency,
    pollIntervalMs: ctx.config.worker.pollMs,
    shutdownTimeoutMs: ctx.config.shutdownTimeoutMs,
    clock: ctx.clock,
    logger,
  })
  worker.start()
  return worker
}

/** `courseport worker`: jobs only, until SIGTERM/SIGINT. */
export async function runWorkerProcess(config: Config): Promise<void> {
  const { default: pino } = await import('pino')
  const logger = pino({ level: config.logLevel })
  const ctx = await createContext(config)
  const worker = await startWorker(ctx, logger)
  logger.info({ concurrency: config.worker.concurrency }, 'courseport worker started')
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'worker shutting down')
    ctx.beginShutdown()
    await worker.stop()
    await ctx.close()
    process.exit(0)
  }
  process.once('SIGTERM', (s) => void shutdown(s))
  process.once('SIGINT', (s) => void shutdown(s))
}
