import type { Mode } from '../../infra/db/schema.ts'
import { signToken, verifyToken } from '../../shared/signed-token.ts'

/** Who may download what: one version's original zip. */
export interface DownloadClaims {
  /** Tenant. */
  t: string
  m: Mode
  /** Package. */
  p: string
  /** Version: the link keeps serving what was published, even after a newer version. */
  v: string
}

/** `{publicUrl}/downloads/{token}`: a signed, expiring link to a package zip, no API key needed. */
export function packageDownloadUrl(
  publicUrl: string,
  secret: string,
  claims: DownloadClaims,
  expiresAt: Date,
): string {
  return `${publicUrl}/downloads/${signToken(secret, 'download', claims, expiresAt)}`
}

export type DownloadCheck =
  | { ok: true; claims: DownloadClaims }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' }

export function verifyDownloadToken(secret: string, token: string, now: Date): DownloadCheck {
  const result = verifyToken<DownloadClaims>(secret, 'download', token, now)
  if (!result.ok) return result
  const { t, m, p, v } = result.claims
  const valid = [t, p, v].every((s) => typeof s === 'string' && s !== '')
  if (!valid || (m !== 'live' && m !== 'test')) return { ok: false, reason: 'malformed' }
  return { ok: true, claims: { t, m, p, v } }
}
