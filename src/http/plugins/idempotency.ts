import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import * as repo from './idempotency-key.repository.ts'

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
        const outcome = await claim(db, clock, request, key, fingerprint(request, bodyDigest))
        if ('replay' in outcome)
          throw new IdempotentReplay(outcome.replay.status, outcome.replay.body)
      }
      return
    }
    const outcome = await claim(
      db,
      clock,
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
    const scope = { tenantId: request.auth.tenantId, mode: request.auth.mode }
    if (reply.statusCode < 500 && typeof payload === 'string') {
      await repo.storeResponse(db, scope, key, { status: reply.statusCode, body: payload })
    } else {
      // A server failure may be retried with the same key: forget the claim.
      await repo.releaseKey(db, scope, key)
    }
    return payload
  })
}

/** Claims `key` for this request, or finds the stored answer to replay; a clash is a 409. */
async function claim(
  db: Kysely<Database>,
  clock: Clock,
  request: FastifyRequest,
  key: string,
  print: string,
): Promise<Claim> {
  const auth = request.auth
  if (!auth) return { claimed: true }
  const scope = { tenantId: auth.tenantId, mode: auth.mode }
  const now = clock.now()
  const expiredBefore = new Date(now.getTime() - RETENTION_MS).toISOString()
  await repo.deleteExpiredKey(db, scope, key, expiredBefore)
  if (await repo.claimKey(db, scope, key, print, now.toISOString())) {
    request.idempotencyKey = key
    return { claimed: true }
  }
  const existing = await repo.findKey(db, scope, key)
  // Released by a failed first request between our claim and this read: a retry may claim it.
  if (!existing) {
    throw new AppError(
      'idempotency_conflict',
      'A request with this Idempotency-Key is still running',
    )
  }
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
