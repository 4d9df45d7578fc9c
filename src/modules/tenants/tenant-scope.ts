import type { Mode } from '../../infra/db/schema.ts'

/**
 * Who a request acts for. Every repository function takes one, so no query path exists that
 * could read another tenant's or the other mode's rows (DESIGN §5).
 */
export interface TenantScope {
  tenantId: string
  mode: Mode
}

export const MODES = ['live', 'test'] as const satisfies readonly Mode[]

export function isMode(value: string): value is Mode {
  return value === 'live' || value === 'test'
}
