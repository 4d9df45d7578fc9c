import { createHash } from 'node:crypto'

/**
 * One content origin per tenant (DESIGN §12, docs/content-origins.md). Every tenant's player,
 * package files and runtime endpoints live on `{label}.{CONTENT_URL host}`, so a page that frames
 * two tenants' players gets two origins the browser keeps apart (DOM, storage, frame URLs).
 * Pure: no configuration is read here; callers pass `ContentOrigins`.
 */
export interface ContentOrigins {
  /** `tenant` (default): one origin per tenant; `single`: every tenant on `contentUrl`. */
  mode: 'tenant' | 'single'
  /** CONTENT_URL, an origin without a trailing slash, e.g. `http://localhost:8081`. */
  contentUrl: string
}

/** `t` + 20 base32 characters: a DNS label (a-z, 2-7), 100 bits, fixed length. */
const LABEL = /^t[a-z2-7]{20}$/
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

/**
 * The tenant's origin label: stable (a hash of the tenant id, nothing to store or migrate),
 * lower-case and DNS-safe whatever the id's alphabet, and not the id itself. It is no secret and
 * nothing relies on it being one: it appears in every launch URL; what keeps tenants apart is
 * that the browser isolates origins and the server binds every token to one.
 */
export function tenantLabel(tenantId: string): string {
  const digest = createHash('sha256').update(`courseport:content-origin\n${tenantId}`).digest()
  let bits = 0
  let value = 0
  let out = 't'
  for (const byte of digest) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5 && out.length < 21) {
      out += BASE32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
    if (out.length === 21) break
    value &= 0xff
  }
  return out
}

/** The origin a tenant's content is served on, e.g. `http://tabc….localhost:8081`. */
export function tenantContentOrigin(origins: ContentOrigins, tenantId: string): string {
  if (origins.mode === 'single') return origins.contentUrl
  const url = new URL(origins.contentUrl)
  return `${url.protocol}//${tenantLabel(tenantId)}.${url.host}`
}

/**
 * The audience a token is bound to: the tenant's label, or `null` in single-origin mode (every
 * token is valid on the one origin, as before tenant origins).
 */
export function tokenAudience(origins: ContentOrigins, tenantId: string): string | null {
  return origins.mode === 'single' ? null : tenantLabel(tenantId)
}

/**
 * What a request's `Host` says: `{kind: 'tenant', label}` on a tenant origin, `bare` on the
 * CONTENT_URL host itself, `other` for anything else. Host names are case-insensitive; the port
 * must be CONTENT_URL's (an absent port means the scheme's default).
 */
export type HostAudience = { kind: 'tenant'; label: string } | { kind: 'bare' } | { kind: 'other' }

export function hostAudience(origins: ContentOrigins, host: string | undefined): HostAudience {
  // Only a host and port: no user info, path or anything else a URL parser would read past.
  if (!host || !/^[A-Za-z0-9.:[\]-]+$/.test(host)) return { kind: 'other' }
  const base = new URL(origins.contentUrl)
  let given: URL
  try {
    given = new URL(`${base.protocol}//${host}`)
  } catch {
    return { kind: 'other' }
  }
  if (given.port !== base.port) return { kind: 'other' }
  const name = given.hostname
  if (name === base.hostname) return { kind: 'bare' }
  const suffix = `.${base.hostname}`
  if (!name.endsWith(suffix)) return { kind: 'other' }
  const label = name.slice(0, -suffix.length)
  return LABEL.test(label) ? { kind: 'tenant', label } : { kind: 'other' }
}

/**
 * Whether a token bound to `audience` may be used on a request with this `Host`. In single
 * mode every host is accepted (the opt-out); in tenant mode only the tenant's own origin, and a
 * token without an audience (made before tenant origins) nowhere.
 */
export function audienceMatches(
  origins: ContentOrigins,
  audience: unknown,
  host: string | undefined,
): boolean {
  if (origins.mode === 'single') return true
  const seen = hostAudience(origins, host)
  return seen.kind === 'tenant' && typeof audience === 'string' && seen.label === audience
}

/** The two settings that decide content origins, as `Config` holds them. */
export function contentOriginsOf(config: {
  contentOrigins: 'tenant' | 'single'
  contentUrl: string
}): ContentOrigins {
  return { mode: config.contentOrigins, contentUrl: config.contentUrl }
}
