/**
 * The URLs a launch hands to content (cmi5 and Tin Can alike): the package file on the tenant's
 * content origin with a content token, and the launch parameters joined onto it.
 */
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import {
  contentOriginsOf,
  tenantContentOrigin,
  tokenAudience,
} from '../../shared/content-origin.ts'
import { signToken } from '../../shared/signed-token.ts'
import type { ManifestSummary } from '../scorm/manifest/manifest.types.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import type { Cmi5Deps } from './lms-writer.ts'

/** How long an AU's content URL and its LRS credential stay valid (12 hours). */
export const LAUNCH_CREDENTIAL_TTL_MS = 12 * 3600 * 1000

/** A version's manifest and files, as a launch needs them. */
export interface LaunchedVersion {
  packageId: string
  manifest: ManifestSummary
  blobPrefix: string
}

/** The package file URL on the tenant's content origin, with a content token for its files. */
export function contentUrl(
  deps: Pick<Cmi5Deps, 'config' | 'clock'>,
  scope: TenantScope,
  version: LaunchedVersion,
  session: SessionsTable,
  href: string,
): string {
  if (/^https?:\/\//i.test(href)) return href
  const { config, clock } = deps
  const origins = contentOriginsOf(config)
  const aud = tokenAudience(origins, scope.tenantId)
  const expires = new Date(clock.now().getTime() + LAUNCH_CREDENTIAL_TTL_MS)
  const token = signToken(
    config.secretKey,
    'content',
    { p: version.blobPrefix, sid: session.id, aud },
    expires,
  )
  return `${tenantContentOrigin(origins, scope.tenantId)}/c/${token}/${href}`
}

/** Joins query parameters onto a URL that may have its own query and fragment. */
export function withParams(url: string, params: Record<string, string>): string {
  const hashAt = url.indexOf('#')
  const base = hashAt < 0 ? url : url.slice(0, hashAt)
  const fragment = hashAt < 0 ? '' : url.slice(hashAt)
  const query = new URLSearchParams(params).toString()
  return `${base}${base.includes('?') ? '&' : '?'}${query}${fragment}`
}
