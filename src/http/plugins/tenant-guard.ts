import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../../shared/app-error.ts'

/** The body fields through which a client may name a tenant (the spec's and the camelCase form). */
const TENANT_FIELDS = ['tenant_id', 'tenantId'] as const

/**
 * The one rule for a tenant named in a request (mass assignment): the API key decides the
 * tenant; a body or multipart field may repeat it, and naming another tenant is a 403
 * `tenant_mismatch` on every endpoint, whether or not its schema lists the field.
 */
export function assertKeyTenant(request: FastifyRequest, fields: unknown): void {
  const auth = request.auth
  if (!auth || typeof fields !== 'object' || fields === null) return
  for (const name of TENANT_FIELDS) {
    const value = (fields as Record<string, unknown>)[name]
    if (value !== undefined && value !== auth.tenantId) {
      throw new AppError('tenant_mismatch', `${name} does not match the API key's tenant`)
    }
  }
}

/** Registers the rule for JSON bodies in an authenticated scope (multipart: receive-upload.ts). */
export function registerTenantGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    assertKeyTenant(request, request.body)
  })
}
