import Fastify, { type FastifyInstance } from 'fastify'
import type { AppContext } from '../../../context.ts'
import { metricsRoutes } from './index.ts'

/**
 * The METRICS_PORT listener's application: `/metrics` only, for a scraper on a private network
 * (bound to METRICS_HOST, default 127.0.0.1), so it needs no token unless METRICS_TOKEN is set.
 * It never listens itself; the entry point does.
 */
export async function buildMetricsApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(metricsRoutes, {
    metrics: ctx.metrics,
    token: ctx.config.metrics.token,
    tokenRequired: false,
  })
  return app
}

/** Starts the METRICS_PORT listener when configured; null when METRICS_PORT is unset. */
export async function startMetricsListener(ctx: AppContext): Promise<FastifyInstance | null> {
  const { port, host } = ctx.config.metrics
  if (port === undefined) return null
  const app = await buildMetricsApp(ctx)
  await app.listen({ host, port })
  return app
}
