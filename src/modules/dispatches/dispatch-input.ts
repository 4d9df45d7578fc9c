import type { DispatchesTable } from '../../infra/db/tables/dispatches.ts'
import { AppError } from '../../shared/app-error.ts'
import { newId } from '../../shared/ids.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { normaliseDomainRules } from './allowed-domains.ts'

/** The spec's body of POST /dispatches (camelCase). */
export interface CreateDispatchInput {
  packageId: string
  name: string
  /** Default: no limit. */
  licenseLimit?: number | null
  /** Default: never expires. */
  expiresAt?: string | null
  /** Default: any domain. */
  allowedDomains?: readonly string[]
  tags?: readonly string[]
}

/** PATCH /dispatches/{id}: every field optional; expiry changes go through extend. */
export interface UpdateDispatchInput {
  name?: string
  licenseLimit?: number | null
  allowedDomains?: readonly string[]
  tags?: readonly string[]
}

export const MAX_TAGS = 50
export const MAX_TAG_LENGTH = 64

export function cleanName(name: string): string {
  const value = name.trim()
  if (!value || value.length > 255) {
    throw new AppError('validation_failed', 'name must be 1 to 255 characters')
  }
  return value
}

export function cleanLicenseLimit(limit: number | null | undefined): number | null {
  if (limit === undefined || limit === null) return null
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new AppError('validation_failed', 'licenseLimit must be a whole number of at least 1')
  }
  return limit
}

/** An ISO 8601 timestamp later than `now`, normalised to UTC with milliseconds; null stays null. */
export function cleanExpiry(value: string | null | undefined, now: Date): string | null {
  if (value === undefined || value === null) return null
  const at = new Date(value)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(at.getTime())) {
    throw new AppError('validation_failed', 'expiresAt must be an ISO 8601 date-time')
  }
  if (at.getTime() <= now.getTime()) {
    throw new AppError('validation_failed', 'expiresAt must be in the future')
  }
  return at.toISOString()
}

export function cleanDomains(domains: readonly string[] | undefined): string[] {
  const result = normaliseDomainRules(domains ?? [])
  if (!result.ok) {
    throw new AppError(
      'validation_failed',
      `allowedDomains: ${result.problems.map((p) => `"${p.entry}" ${p.problem}`).join('; ')}`,
      { allowedDomains: result.problems },
    )
  }
  return result.rules
}

export function cleanTags(tags: readonly string[] | undefined): string[] {
  const out: string[] = []
  for (const raw of tags ?? []) {
    const tag = raw.trim()
    if (!tag || tag.length > MAX_TAG_LENGTH) {
      throw new AppError('validation_failed', `tags must be 1 to ${MAX_TAG_LENGTH} characters`)
    }
    if (!out.includes(tag)) out.push(tag)
  }
  if (out.length > MAX_TAGS) {
    throw new AppError('validation_failed', `at most ${MAX_TAGS} tags are allowed`)
  }
  return out
}

/** A new, active dispatch row from a validated create body (throws 400 on bad input). */
export function newDispatchRow(
  scope: TenantScope,
  input: CreateDispatchInput,
  now: Date,
): DispatchesTable {
  const at = now.toISOString()
  return {
    id: newId('dsp'),
    tenant_id: scope.tenantId,
    mode: scope.mode,
    package_id: input.packageId,
    name: cleanName(input.name),
    status: 'active',
    license_limit: cleanLicenseLimit(input.licenseLimit),
    expires_at: cleanExpiry(input.expiresAt, now),
    allowed_domains: JSON.stringify(cleanDomains(input.allowedDomains)),
    tags: JSON.stringify(cleanTags(input.tags)),
    learner_count: 0,
    launch_count: 0,
    refusal_count: 0,
    created_at: at,
    updated_at: at,
    paused_at: null,
    archived_at: null,
    deleted_at: null,
    expired_event_at: null,
    wrapper_generation: 0,
    new_learner_window: null,
    new_learner_window_count: 0,
    separated_count: 0,
    rate_limited_count: 0,
  }
}
