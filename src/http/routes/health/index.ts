import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { Type } from 'typebox'
import type { Db } from '../../../infra/db/database.ts'

const Health = Type.Object({ status: Type.String() })

/**
 * `/healthz`: the process is up (no I/O, for liveness probes and as the benchmarks' baseline).
 * `/readyz`: the database answers and the process is not shutting down.
 */
export async function healthRoutes(
  app: FastifyInstance,
  options: { db: Db; isShuttingDown: () => boolean },
): Promise<void> {
  const schema = (summary: string) => ({
    tags: ['system'],
    summary,
    security: [],
    response: { 200: Health, 503: Health },
  })
  app.get('/healthz', { schema: schema('Liveness'), logLevel: 'warn' }, async () => ({
    status: 'ok',
  }))
  app.get('/readyz', { schema: schema('Readiness'), logLevel: 'warn' }, async (_request, reply) => {
    if (options.isShuttingDown()) return reply.status(503).send({ status: 'shutting_down' })
    try {
      await sql`select 1`.execute(options.db.kysely)
      return { status: 'ready' }
    } catch {
      return reply.status(503).send({ status: 'database_unavailable' })
    }
  })
}
