import { setTimeout as sleep } from 'node:timers/promises'
import { buildApp, buildContentApp } from '../app.ts'
import type { Config } from '../config.ts'
import type { AppContext } from '../context.ts'
import { startMetricsListener } from '../http/routes/metrics/metrics-app.ts'
import { createContext } from './context.ts'
import { developmentOwnerLink } from './dev-owner.ts'
import { useProcessScratch } from './scratch.ts'
import { catchShutdownSignals } from './shutdown-signals.ts'
import { processLogger } from './terminal-log.ts'
import { startWorker } from './worker.ts'

/**
 * First start on an empty database: a development tenant whose keys are printed once. Later
 * starts say where the keys went and how to make more, so a restart never leaves a newcomer
 * without a way in.
 */
async function ensureDevelopmentTenant(ctx: AppContext): Promise<void> {
  const tenants = await ctx.services.tenants.listTenants()
  if (tenants.length > 0) return void process.stdout.write(restartHint(ctx, tenants))
  const created = await ctx.services.tenants.createTenant({ name: 'Development', plan: 'growth' })
  const lines = [
    '',
    'Created a development tenant. Its API keys are shown this once — keep them:',
    `  tenant:   ${created.tenantId}`,
    `  test key: ${created.testKey.key}`,
    `  live key: ${created.liveKey.key}`,
    `Try: curl -H "Authorization: Bearer ${created.testKey.key}" ${ctx.config.publicUrl}/api/v1/packages`,
    '',
    ...(await developmentOwnerLink(ctx, created.tenantId)),
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
}

function restartHint(ctx: AppContext, tenants: ReadonlyArray<{ id: string; name: string }>) {
  const dev = tenants.find((t) => t.name === 'Development') ?? tenants[0]
  const id = dev?.id ?? 'TENANT_ID'
  return `${[
    '',
    `API keys are shown only when made (the first start printed the development tenant's).`,
    `  new key:    npx courseport key create --tenant ${id} --mode test`,
    `  tenants:    npx courseport tenant list`,
    `  dashboard:  ${ctx.config.publicUrl}/dashboard/ (a new sign-in link: npx courseport user create --tenant ${id} --email you@example.com)`,
    '',
  ].join('\n')}\n`
}

/**
 * `courseport serve`: API on PORT, content on CONTENT_PORT, and (unless `withWorker` is false)
 * the job worker in the same process. On SIGTERM /readyz turns 503 at once while the listeners
 * keep serving for SHUTDOWN_DRAIN_DELAY_MS (a load balancer notices and stops sending), then HTTP
 * drains, the worker finishes or releases its jobs, and the process's temp folder is removed.
 * SIGINT (Ctrl-C) skips the delay.
 */
export async function runServer(config: Config, options: { withWorker: boolean }): Promise<void> {
  const signals = catchShutdownSignals()
  const scratch = await useProcessScratch()
  const ctx = await createContext(config)
  await ensureDevelopmentTenant(ctx)
  // Pretty and quieter on a terminal, JSON lines otherwise (terminal-log.ts).
  const api = await buildApp(ctx, { loggerInstance: processLogger(config.logLevel) })
  const content = await buildContentApp(ctx, { loggerInstance: api.log })
  await api.listen({ host: config.host, port: config.port })
  await content.listen({ host: config.host, port: config.contentPort })
  const metrics = await startMetricsListener(ctx)
  const worker = options.withWorker ? await startWorker(ctx, api.log) : null
  if (scratch.removed.length > 0) {
    api.log.info({ removed: scratch.removed }, 'removed temp folders of processes that died')
  }
  api.log.info(
    {
      api: config.publicUrl,
      content: config.contentUrl,
      worker: options.withWorker,
      metrics: metrics ? `http://${config.metrics.host}:${config.metrics.port}/metrics` : null,
    },
    'courseport is serving',
  )

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    ctx.beginShutdown()
    const delay = signal === 'SIGTERM' ? config.shutdownDrainDelayMs : 0
    api.log.info({ signal, drainDelayMs: delay }, 'shutting down')
    if (delay > 0) await sleep(delay)
    const force = setTimeout(() => {
      api.log.error('shutdown timed out; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs)
    force.unref()
    await Promise.all([api.close(), content.close(), metrics?.close()])
    await worker?.stop()
    await ctx.close()
    await scratch.dispose()
    process.exit(0)
  }
  signals.whenStarted((signal) => void shutdown(signal))
}
