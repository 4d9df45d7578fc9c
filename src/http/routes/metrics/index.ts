import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { HttpRequestSample, Metrics, MetricsExporter } from '../../../infra/metrics/index.ts'

export interface MetricsRouteOptions {
  metrics: MetricsExporter
  /** METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`. */
  token: string | undefined
  /**
   * The public API origin: without a token, /metrics is not served at all (404). Private
   * listeners (METRICS_PORT, the worker's health port) serve it without one.
   */
  tokenRequired: boolean
}

const digest = (value: string) => createHash('sha256').update(value).digest()

/** Compares digests, so neither the token's length nor its bytes leak through timing. */
function bearerMatches(request: FastifyRequest, expected: Buffer): boolean {
  const sent = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1]
  return sent !== undefined && timingSafeEqual(digest(sent), expected)
}

function refuse(reply: FastifyReply) {
  return reply
    .code(401)
    .header('www-authenticate', 'Bearer realm="metrics"')
    .send({ error: { code: 'unauthorized', message: 'Send Authorization: Bearer METRICS_TOKEN' } })
}

/**
 * `GET /metrics` in the Prometheus text format (docs/operations.md, "Metrics"). Protected as
 * `MetricsRouteOptions` says; the answer is never cached.
 */
export async function metricsRoutes(app: FastifyInstance, options: MetricsRouteOptions) {
  const { metrics, token } = options
  if (token === undefined && options.tokenRequired) return
  const expected = token === undefined ? undefined : digest(token)
  app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
    if (expected && !bearerMatches(request, expected)) return refuse(reply)
    const body = await metrics.render()
    return reply
      .header('content-type', metrics.contentType)
      .header('cache-control', 'no-store')
      .send(body)
  })
}

/**
 * Records every answered request's latency under its route pattern (`routeOptions.url`), never
 * its URL: launch, content and upload tokens travel in paths and query strings. A request no
 * route matched is recorded as `unmatched`, so probes for random paths add no series.
 */
export function registerRequestMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  origin: HttpRequestSample['origin'],
): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequest({
      origin,
      route: request.routeOptions.url ?? 'unmatched',
      method: request.method,
      statusCode: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    })
  })
}
