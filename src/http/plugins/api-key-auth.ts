import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AuthenticatedKey, TenantService } from '../../modules/tenants/tenant.service.ts'
import { AppError } from '../../shared/app-error.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API-key hook on /api/v1 routes; null elsewhere. */
    auth: AuthenticatedKey | null
  }
}

/** The raw key from `Authorization: Bearer …` or `X-API-Key: …` (DESIGN §5). */
export function readApiKey(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    return match?.[1]
  }
  const header = request.headers['x-api-key']
  return Array.isArray(header) ? header[0] : header
}

/** An onRequest hook that resolves the tenant scope from the key or answers 401. */
export function apiKeyAuthHook(tenants: TenantService) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const raw = readApiKey(request)
    if (!raw) {
      throw new AppError(
        'unauthorized',
        'Missing API key: send "Authorization: Bearer <key>" or "X-API-Key: <key>"',
      )
    }
    const auth = await tenants.authenticate(raw)
    if (!auth) throw new AppError('unauthorized', 'Invalid or revoked API key')
    request.auth = auth
  }
}

/** The scope of an authenticated request; only call it on routes behind `apiKeyAuthHook`. */
export function scopeOf(request: FastifyRequest): AuthenticatedKey {
  if (!request.auth) throw new AppError('unauthorized', 'Not authenticated')
  return request.auth
}
