import { createHmac, timingSafeEqual } from 'node:crypto'

/** What an fs-backend upload URL authorises: one PUT of `key`, until `expiresAt`. */
export interface UploadTokenClaims {
  key: string
  /** When set, the upload must declare exactly this `Content-Type`. */
  contentType?: string
  /** When set, the upload must be exactly this many bytes. */
  contentLength?: number
  expiresAt: Date
}

export type UploadTokenFailure = 'malformed' | 'bad_signature' | 'expired'

export type UploadTokenResult =
  | { ok: true; claims: UploadTokenClaims }
  | { ok: false; reason: UploadTokenFailure }

// Domain separation: an HMAC made with the same secret for another purpose never verifies here.
const CONTEXT = 'courseport-upload-token-v1\n'
const MIN_SECRET_BYTES = 16
const B64URL = /^[A-Za-z0-9_-]+$/

function mac(secret: string | Buffer, payload: string): Buffer {
  const bytes = typeof secret === 'string' ? Buffer.byteLength(secret) : secret.length
  if (bytes < MIN_SECRET_BYTES) {
    throw new Error(`upload token secret must be at least ${MIN_SECRET_BYTES} bytes`)
  }
  return createHmac('sha256', secret).update(CONTEXT).update(payload).digest()
}

/**
 * `base64url(json).base64url(hmac-sha256)`; the JSON is `{k, ct?, cl?, exp}` with `exp` in
 * whole Unix seconds (rounded up). Throws if the secret is shorter than 16 bytes.
 */
export function signUploadToken(secret: string | Buffer, claims: UploadTokenClaims): string {
  const body: Record<string, string | number> = {
    k: claims.key,
    exp: Math.ceil(claims.expiresAt.getTime() / 1000),
  }
  if (claims.contentType !== undefined) body.ct = claims.contentType
  if (claims.contentLength !== undefined) body.cl = claims.contentLength
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url')
  return `${payload}.${mac(secret, payload).toString('base64url')}`
}

function parseClaims(payload: string): UploadTokenClaims | null {
  let body: unknown
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    return null
  }
  if (typeof body !== 'object' || body === null) return null
  const { k, ct, cl, exp } = body as Record<string, unknown>
  if (typeof k !== 'string' || k === '') return null
  if (typeof exp !== 'number' || !Number.isSafeInteger(exp)) return null
  if (ct !== undefined && typeof ct !== 'string') return null
  if (cl !== undefined && (typeof cl !== 'number' || !Number.isSafeInteger(cl) || cl < 0)) {
    return null
  }
  const claims: UploadTokenClaims = { key: k, expiresAt: new Date(exp * 1000) }
  if (ct !== undefined) claims.contentType = ct
  if (cl !== undefined) claims.contentLength = cl
  return claims
}

/**
 * Checks the signature (constant-time) before looking inside, then expiry: a token is valid
 * while `now < expiresAt`. Never throws for a bad token, only for a too-short secret.
 */
export function verifyUploadToken(
  secret: string | Buffer,
  token: string,
  now: Date,
): UploadTokenResult {
  const parts = token.split('.')
  const [payload, signature] = parts
  if (parts.length !== 2 || !payload || !signature) return { ok: false, reason: 'malformed' }
  if (!B64URL.test(payload) || !B64URL.test(signature)) return { ok: false, reason: 'malformed' }
  // Compare the canonical text, not decoded bytes: base64url ignores stray low bits, which would
  // let several spellings of one signature verify.
  const expected = Buffer.from(mac(secret, payload).toString('base64url'))
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' }
  }
  const claims = parseClaims(payload)
  if (!claims) return { ok: false, reason: 'malformed' }
  if (now.getTime() >= claims.expiresAt.getTime()) return { ok: false, reason: 'expired' }
  return { ok: true, claims }
}
