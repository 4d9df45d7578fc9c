import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'

/** How long a stored response is replayed for the same key (24 h, like Stripe). */
const RETENTION_MS = 24 * 3600 * 1000

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null
    /**
     * Set on a multipart POST carrying Idempotency-Key: the body is still unread in preHandler,
     * so whoever reads it claims the key with a digest of what it read (receive-upload.ts).
     * A replay is thrown as `IdempotentReplay`.
     */
    claimIdempotency: ((bodyDigest: string) => Promise<void>) | null
  }
  interface FastifyContextConfig {
    /** false: the route ignores Idempotency-Key (its answer must never be stored, e.g. a secret). */
    idempotent?: boolean
  }
}

/** The stored answer of an earlier request with the same key; the error handler sends it. */
export class IdempotentReplay extends Error {
  readonly status: number
  readonly body: string
  constructor(status: number, body: string) {
    super('Idempotent replay')
    this.status = status
    this.body = body
  }
}

/**
 * What the request means: method, URL and the body's content. A multipart body is represented
 * by the digest of its fields and files (never its boundary, which a client's retry changes).
 */
function fingerprint(request: FastifyRequest, bodyDigest: string): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${bodyDigest}`)
    .digest('hex')
}

type Claim = { claimed: true } | { replay: { status: number; body: string } }

/**
 * `Idempotency-Key` on POST: the first request with a key runs and its response (any status
 * below 500) is stored; a retry with the same key and the same request gets that response again
 * with `Idempotent-Replayed: true`; the same key with a different request, or while the first is
 * still running, answers 409. Register inside an authenticated scope: keys are per tenant and mode.
 */
export function registerIdempotency(
  app: FastifyInstance,
  options: { db: Kysely<Database>; clock: Clock },
): void {
  const { db, clock } = options
  app.decorateRequest('idempotencyKey', null)
  app.decorateRequest('claimIdempotency', null)

  async function claim(request: FastifyRequest, key: string, print: string): Promise<Claim> {
    const auth = request.auth
    if (!auth) return { claimed: true }
    const scope = { tenant_id: auth.tenantId, mode: auth.mode, key }
    const now = clock.now()
    await db
      .deleteFrom('idempotency_keys')
      .where('tenant_id', '=', scope.tenant_id)
      .where('mode', '=', scope.mode)
      .where('key', '=', key)
      .where('created_at', '<', new Date(now.getTime() - RETENTION_MS).toISOString())
      .execute()
    const claimed = await db
      .insertInto('idempotency_keys')
      .values({
        ...scope,
        fingerprint: print,
        status_code: null,
        response_body: null,
        created_at: now.toISOString(),
      })
      .onConflict((oc) => oc.doNothing())
      .returning('key')
      .executeTakeFirst()
    if (claimed) {
      request.idempotencyKey = key
      return { claimed: true }
    }
    const existing = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('tenant_id', '=', scope.tenant_id)
      .where('mode', '=', scope.mode)
      .where('key', '=', key)
      .executeTakeFirstOrThrow()
    if (existing.fingerprint !== print) {
      throw new AppError(
        'idempotency_conflict',
        'This Idempotency-Key was already used with a different request',
      )
    }
    if (existing.status_code === null || existing.response_body === null) {
      throw new AppError(
        'idempotency_conflict',
        'A request with this Idempotency-Key is still running',
      )
    }
    return { replay: { status: existing.status_code, body: existing.response_body } }
  }

  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key']
    if (request.method !== 'POST' || typeof key !== 'string' || !request.auth) return
    if (request.routeOptions.config.idempotent === false) return
    if (key.length === 0 || key.length > 255) {
      throw new AppError('validation_failed', 'Idempotency-Key must be 1 to 255 characters')
    }
    if (request.isMultipart()) {
      request.claimIdempotency = async (bodyDigest) => {
        request.claimIdempotency = null
        const outcome = await claim(request, key, fingerprint(request, bodyDigest))
        if ('replay' in outcome)
          throw new IdempotentReplay(outcome.replay.status, outcome.replay.body)
      }
      return
    }
    const outcome = await claim(
      request,
      key,
      fingerprint(request, JSON.stringify(request.body ?? null)),
    )
    if ('claimed' in outcome) return
    return reply
      .status(outcome.replay.status)
      .header('idempotent-replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(outcome.replay.body)
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.idempotencyKey
    if (!key || !request.auth) return payload
    request.idempotencyKey = null
    const where = db
      .updateTable('idempotency_keys')
      .where('tenant_id', '=', request.auth.tenantId)
      .where('mode', '=', request.auth.mode)
      .where('key', '=', key)
    if (reply.statusCode < 500 && typeof payload === 'string') {
      await where.set({ status_code: reply.statusCode, response_body: payload }).execute()
    } else {
      // A server failure may be retried with the same key: forget the claim.
      await db
        .deleteFrom('idempotency_keys')
        .where('tenant_id', '=', request.auth.tenantId)
        .where('mode', '=', request.auth.mode)
        .where('key', '=', key)
        .execute()
    }
    return payload
  })
}
