import { buildApp, buildContentApp } from '../app.ts'
import type { Config } from '../config.ts'
import type { AppContext } from '../context.ts'
import { createContext } from './context.ts'
import { startWorker } from './worker.ts'

/** First start on an empty database: a development tenant whose keys are printed once. */
async function ensureDevelopmentTenant(ctx: AppContext): Promise<void> {
  if (await ctx.services.tenants.hasAnyTenant()) return
  const created = await ctx.services.tenants.createTenant({ name: 'Development', plan: 'growth' })
  const lines = [
    '',
    'Created a development tenant. Its API keys are shown this once — keep them:',
    `  tenant:   ${created.tenantId}`,
    `  test key: ${created.testKey.key}`,
    `  live key: ${created.liveKey.key}`,
    `Try: curl -H "Authorization: Bearer ${created.testKey.key}" ${ctx.config.publicUrl}/api/v1/packages`,
    '',
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
}

/**
 * `courseport serve`: API on PORT, content on CONTENT_PORT, and (unless `withWorker` is false)
 * the job worker in the same process. SIGTERM/SIGINT drain HTTP, then stop the worker, which
 * finishes or releases its jobs.
 */
export async function runServer(config: Config, options: { withWorker: boolean }): Promise<void> {
  const ctx = await createContext(config)
  await ensureDevelopmentTenant(ctx)
  const api = await buildApp(ctx)
  const content = await buildContentApp(ctx, { loggerInstance: api.log })
  await api.listen({ host: config.host, port: config.port })
  await content.listen({ host: config.host, port: config.contentPort })
  const worker = options.withWorker ? await startWorker(ctx, api.log) : null
  api.log.info(
    { api: config.publicUrl, content: config.contentUrl, worker: options.withWorker },
    'courseport is serving',
  )

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    api.log.info({ signal }, 'shutting down')
    ctx.beginShutdown()
    const force = setTimeout(() => {
      api.log.error('shutdown timed out; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs)
    force.unref()
    await Promise.all([api.close(), content.close()])
    await worker?.stop()
    await ctx.close()
    process.exit(0)
  }
  process.once('SIGTERM', (s) => void shutdown(s))
  process.once('SIGINT', (s) => void shutdown(s))
}
