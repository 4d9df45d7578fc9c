import type { FastifyInstance } from 'fastify'

/** What a 503 asks clients (and load balancers) to wait before trying again, in seconds. */
export const RETRY_AFTER_SECONDS = 5

/**
 * Every 503 (a dependency outage: `storage_unavailable`, `database_unavailable`, shutting down)
 * carries `Retry-After`, so clients back off instead of hammering a process that cannot help.
 * Registered on the root instance, so it covers every route and the error handler.
 */
export function addRetryAfterTo503(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) {
      reply.header('retry-after', String(RETRY_AFTER_SECONDS))
    }
  })
}
