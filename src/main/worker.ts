import Fastify from 'fastify'
import type { Config } from '../config.ts'
import type { AppContext } from '../context.ts'
import { healthRoutes } from '../http/routes/health/index.ts'
import { addRetryAfterTo503 } from '../http/routes/health/retry-after.ts'
import { metricsRoutes } from '../http/routes/metrics/index.ts'
import { startMetricsListener } from '../http/routes/metrics/metrics-app.ts'
import { createQueue, Worker, type WorkerLogger } from '../infra/queue/index.ts'
import { schedules, taskRegistry } from '../jobs/registry.ts'
import { createContext } from './context.ts'
import { useProcessScratch } from './scratch.ts'
import { catchShutdownSignals } from './shutdown-signals.ts'

/** Starts a job worker over the context's database; `stop()` finishes or releases its jobs. */
export async function startWorker(ctx: AppContext, logger: WorkerLogger): Promise<Worker> {
  const queue = createQueue(ctx.db, { clock: ctx.clock })
  for (const schedule of schedules(ctx.config)) {
    await queue.defineSchedule(schedule.name, schedule.task, schedule.intervalSeconds)
  }
  const worker = new Worker(ctx.db, taskRegistry(ctx), {
    concurrency: ctx.config.worker.concurrency,
    pollIntervalMs: ctx.config.worker.pollMs,
    leaseSeconds: ctx.config.worker.leaseSeconds,
    shutdownTimeoutMs: ctx.config.shutdownTimeoutMs,
    clock: ctx.clock,
    logger,
  })
  worker.start()
  return worker
}

/**
 * The worker's optional health listener (WORKER_HEALTH_PORT on WORKER_HEALTH_HOST, default
 * 127.0.0.1): /healthz (the process is up) and /readyz (database and blob store answer, not
 * shutting down), exactly as on the API, and /metrics (a private listener: a token only when
 * METRICS_TOKEN is set).
 */
async function startHealthListener(ctx: AppContext) {
  const { healthPort, healthHost } = ctx.config.worker
  if (healthPort === undefined) return null
  const app = Fastify({ logger: false })
  addRetryAfterTo503(app)
  await app.register(healthRoutes, {
    db: ctx.db,
    blobs: ctx.blobs,
    isShuttingDown: ctx.lifecycle.isShuttingDown,
  })
  await app.register(metricsRoutes, {
    metrics: ctx.metrics,
    token: ctx.config.metrics.token,
    tokenRequired: false,
  })
  await app.listen({ host: healthHost, port: healthPort })
  return app
}

/** `courseport worker`: jobs only, until SIGTERM/SIGINT. */
export async function runWorkerProcess(config: Config): Promise<void> {
  const { default: pino } = await import('pino')
  const logger = pino({ level: config.logLevel })
  const signals = catchShutdownSignals()
  const scratch = await useProcessScratch()
  const ctx = await createContext(config)
  const worker = await startWorker(ctx, logger)
  const health = await startHealthListener(ctx)
  const metrics = await startMetricsListener(ctx)
  if (scratch.removed.length > 0) {
    logger.info({ removed: scratch.removed }, 'removed temp folders of processes that died')
  }
  logger.info(
    {
      concurrency: config.worker.concurrency,
      health: health ? `http://${config.worker.healthHost}:${config.worker.healthPort}` : null,
      metrics: metrics ? `http://${config.metrics.host}:${config.metrics.port}/metrics` : null,
    },
    'courseport worker started',
  )
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'worker shutting down')
    ctx.beginShutdown()
    await worker.stop()
    await health?.close()
    await metrics?.close()
    await ctx.close()
    await scratch.dispose()
    process.exit(0)
  }
  signals.whenStarted((signal) => void shutdown(signal))
}
