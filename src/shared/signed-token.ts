import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Compact HMAC-signed tokens: `base64url(json).base64url(hmac)`. The `purpose` is mixed into
 * the MAC, so a token made for one use (a launch) never verifies as another (content access).
 * Claims carry their own expiry `exp` in Unix seconds.
 */
export type TokenPurpose = 'launch' | 'content' | 'runtime' | 'dispatch' | 'download'

export type VerifyResult<T> =
  | { ok: true; claims: T & { exp: number } }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' }

function mac(secret: string, purpose: TokenPurpose, payload: string): string {
  return createHmac('sha256', secret)
    .update(`courseport:${purpose}\n`)
    .update(payload)
    .digest('base64url')
}

export function signToken<T extends object>(
  secret: string,
  purpose: TokenPurpose,
  claims: T,
  expiresAt: Date,
): string {
  const payload = Buffer.from(
    JSON.stringify({ ...claims, exp: Math.ceil(expiresAt.getTime() / 1000) }),
  ).toString('base64url')
  return `${payload}.${mac(secret, purpose, payload)}`
}

/**
 * Tokens whose MAC has been checked, per secret and purpose: a learner presents the same runtime
 * or content token on every request of a sitting, and the HMAC is the costly part. Expiry is
 * still checked on every use. Bounded; cleared when full.
 */
const verified = new Map<string, Map<TokenPurpose, Map<string, { exp: number }>>>()
const VERIFIED_CACHE_SIZE = 20_000

/** The verified tokens of one secret and purpose (keyed by the token itself: no key to build). */
function verifiedOf(secret: string, purpose: TokenPurpose): Map<string, { exp: number }> {
  let bySecret = verified.get(secret)
  if (!bySecret) {
    bySecret = new Map()
    verified.set(secret, bySecret)
  }
  let known = bySecret.get(purpose)
  if (!known) {
    known = new Map()
    bySecret.set(purpose, known)
  }
  return known
}

/** Checks the MAC in constant time before reading the claims, then the expiry. Never throws. */
export function verifyToken<T extends object>(
  secret: string,
  purpose: TokenPurpose,
  token: string,
  now: Date,
): VerifyResult<T> {
  const known = verifiedOf(secret, purpose)
  const cached = known.get(token) as (T & { exp: number }) | undefined
  const result = cached
    ? ({ ok: true, claims: cached } as const)
    : checkToken<T>(secret, purpose, token)
  if (!result.ok) return result
  if (now.getTime() >= result.claims.exp * 1000) return { ok: false, reason: 'expired' }
  if (!cached) {
    if (known.size >= VERIFIED_CACHE_SIZE) known.clear()
    known.set(token, result.claims)
  }
  return result
}

function checkToken<T extends object>(
  secret: string,
  purpose: TokenPurpose,
  token: string,
): VerifyResult<T> {
  const [payload, signature, extra] = token.split('.')
  if (!payload || !signature || extra !== undefined) return { ok: false, reason: 'malformed' }
  const expected = Buffer.from(mac(secret, purpose, payload))
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' }
  }
  let claims: unknown
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    return { ok: false, reason: 'malformed' }
  }
  if (
    typeof claims !== 'object' ||
    claims === null ||
    typeof (claims as { exp?: unknown }).exp !== 'number'
  ) {
    return { ok: false, reason: 'malformed' }
  }
  return { ok: true, claims: Object.freeze(claims) as T & { exp: number } }
}
