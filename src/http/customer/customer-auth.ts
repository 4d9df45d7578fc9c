import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Mode } from '../../infra/db/schema.ts'
import type { AccountService, SignedInUser } from '../../modules/accounts/account.service.ts'
import { constantTimeEqual } from '../../modules/accounts/secret-token.ts'
import type { TenantScope } from '../../modules/tenants/tenant-scope.ts'
import { AppError } from '../../shared/app-error.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the dashboard session hook on /api/customer routes; null elsewhere. */
    customer: SignedInUser | null
  }
  interface FastifyContextConfig {
    /** A /api/customer route that needs no session (sign-in, accepting an invite). */
    customerPublic?: boolean
  }
}

/** The dashboard's session cookie. It holds a random id; the database holds its SHA-256. */
export const SESSION_COOKIE = 'cp_session'
/** The header every state-changing /api/customer call carries the session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** `HttpOnly; SameSite=Lax; Path=/`, and `Secure` when the public URL is https. */
export function sessionCookieOptions(publicUrl: string, expiresAt?: string) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    secure: publicUrl.startsWith('https:'),
    ...(expiresAt && { expires: new Date(expiresAt) }),
  }
}

/**
 * The /api/customer onRequest hook. API keys are refused outright (DESIGN §5: keys never work
 * here), the cookie's session is looked up in the database on every request (so a sign-out
 * anywhere takes effect at once), and every method but GET/HEAD/OPTIONS must send the session's
 * CSRF token in X-CSRF-Token, compared in constant time.
 */
export function customerAuthHook(accounts: AccountService) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (request.headers.authorization !== undefined || request.headers['x-api-key'] !== undefined)
      throw new AppError(
        'unauthorized',
        'API keys are not accepted on /api/customer; sign in to the dashboard instead',
      )
    if (request.routeOptions.config.customerPublic) return
    const sessionId = request.cookies[SESSION_COOKIE]
    const user = sessionId ? await accounts.authenticate(sessionId) : null
    if (!user) throw new AppError('unauthorized', 'Not signed in, or the session has ended')
    if (!SAFE_METHODS.has(request.method)) {
      const sent = request.headers[CSRF_HEADER]
      if (typeof sent !== 'string' || !constantTimeEqual(sent, user.csrfToken))
        throw new AppError('csrf_failed', `Missing or wrong ${CSRF_HEADER} header`)
    }
    request.customer = user
  }
}

/** The signed-in user; only call it on routes behind `customerAuthHook`. */
export function customerOf(request: FastifyRequest): SignedInUser {
  if (!request.customer) throw new AppError('unauthorized', 'Not signed in')
  return request.customer
}

/**
 * The scope a dashboard request reads: the user's tenant, in the mode the page's test/live
 * switch sends as `?mode=` (default `test`, so nobody looks at live data by accident).
 */
export function customerScope(request: FastifyRequest, mode: Mode | undefined): TenantScope {
  return { tenantId: customerOf(request).tenantId, mode: mode ?? 'test' }
}
