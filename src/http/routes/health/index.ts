import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { Type } from 'typebox'
import type { BlobStore } from '../../../infra/blobs/blob-store.ts'
import type { Db } from '../../../infra/db/database.ts'
import { RETRY_AFTER_SECONDS } from './retry-after.ts'

const Health = Type.Object({ status: Type.String() })

/**
 * `/healthz`: the process is up (no I/O, for liveness probes and as the benchmarks' baseline).
 * `/readyz`: the database and the blob store answer and the process is not shutting down; it
 * names the first dependency that does not (`database_unavailable`, `storage_unavailable`).
 */
export async function healthRoutes(
  app: FastifyInstance,
  options: { db: Db; blobs?: BlobStore; isShuttingDown: () => boolean },
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
    const problem = options.isShuttingDown() ? 'shutting_down' : await firstProblem(options)
    if (problem === null) return { status: 'ready' }
    return reply
      .status(503)
      .header('retry-after', String(RETRY_AFTER_SECONDS))
      .send({ status: problem })
  })
}

/** Both dependencies are probed at once, so a slow store does not delay the database's answer. */
async function firstProblem(options: { db: Db; blobs?: BlobStore }): Promise<string | null> {
  const [database, storage] = await Promise.allSettled([
    sql`select 1`.execute(options.db.kysely),
    options.blobs?.checkHealth(),
  ])
  if (database.status === 'rejected') return 'database_unavailable'
  if (storage.status === 'rejected') return 'storage_unavailable'
  return null
}
