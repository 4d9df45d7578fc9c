import type { DispatchesTable } from '../../infra/db/tables/dispatches.ts'
import {
  type ContentOrigins,
  tenantContentOrigin,
  tokenAudience,
} from '../../shared/content-origin.ts'
import { signToken } from '../../shared/signed-token.ts'
import { type DispatchStatus, effectiveStatus } from './dispatch.state-machine.ts'

/** The dispatch record of the API. Field names are camelCase, like the spec's request body. */
export interface DispatchView {
  id: string
  packageId: string
  name: string
  status: DispatchStatus
  licenseLimit: number | null
  expiresAt: string | null
  allowedDomains: string[]
  tags: string[]
  /** What the wrapper package opens in its frame (content origin, signed dispatch token). */
  launchUrl: string
  counts: {
    /** Learners holding a licence seat (launched at least once). */
    uniqueLearners: number
    launches: number
    /** Distinct learners with a completed or passed session. */
    completions: number
    /** Launches refused (paused, expired, licence limit, domain…). */
    refusals: number
    /**
     * Launches that named a learner who was registered already but did not present that
     * registration's key: each got a separate learner id (docs/dispatch.md, learner keys).
     */
    separatedLearners: number
    /** Launches refused because too many new learners started in the same minute. */
    rateLimited: number
  }
  /** Raised by revoking wrappers: only wrappers exported since then can launch. */
  wrapperGeneration: number
  createdAt: string
  updatedAt: string
  pausedAt: string | null
  archivedAt: string | null
}

export interface LinkSettings {
  origins: ContentOrigins
  secretKey: string
}

/** Claims of a dispatch token: the dispatch, its wrapper generation, the content origin's label. */
export interface DispatchTokenClaims {
  did?: unknown
  gen?: unknown
  aud?: unknown
}

/** Wrapper packages live in client LMSs for years: the token outlives any dispatch's expiry. */
const TOKEN_YEARS = 50

/**
 * The signed token the wrapper carries, valid only on the tenant's content origin and for the
 * dispatch's current wrapper generation. Deterministic (its expiry derives from the creation
 * time), so every export of one generation carries the same token.
 */
export function dispatchToken(row: DispatchesTable, links: LinkSettings): string {
  const expires = new Date(row.created_at)
  expires.setUTCFullYear(expires.getUTCFullYear() + TOKEN_YEARS)
  const claims: DispatchTokenClaims = {
    did: row.id,
    gen: Number(row.wrapper_generation),
    aud: tokenAudience(links.origins, row.tenant_id),
  }
  return signToken(links.secretKey, 'dispatch', claims, expires)
}

export function dispatchFrameUrl(row: DispatchesTable, links: LinkSettings): string {
  const token = dispatchToken(row, links)
  const origin = tenantContentOrigin(links.origins, row.tenant_id)
  return `${origin}/dispatch/${row.id}/frame?token=${encodeURIComponent(token)}`
}

export function parseList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text)
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
  } catch {
    return []
  }
}

export function toDispatchView(
  row: DispatchesTable,
  extra: { completions: number; now: Date; links: LinkSettings },
): DispatchView {
  return {
    id: row.id,
    packageId: row.package_id,
    name: row.name,
    status: effectiveStatus(row, extra.now),
    licenseLimit: row.license_limit === null ? null : Number(row.license_limit),
    expiresAt: row.expires_at,
    allowedDomains: parseList(row.allowed_domains),
    tags: parseList(row.tags),
    launchUrl: dispatchFrameUrl(row, extra.links),
    counts: {
      uniqueLearners: Number(row.learner_count),
      launches: Number(row.launch_count),
      completions: extra.completions,
      refusals: Number(row.refusal_count),
      separatedLearners: Number(row.separated_count),
      rateLimited: Number(row.rate_limited_count),
    },
    wrapperGeneration: Number(row.wrapper_generation),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    pausedAt: row.paused_at,
    archivedAt: row.archived_at,
  }
}

/** What dispatch.* audit events carry beyond the webhook baseline. */
export function dispatchEventData(row: DispatchesTable, now: Date): Record<string, unknown> {
  return {
    dispatch_id: row.id,
    package_id: row.package_id,
    name: row.name,
    status: effectiveStatus(row, now),
    license_limit: row.license_limit,
    expires_at: row.expires_at,
  }
}
