import { createHmac, randomBytes } from 'node:crypto'

/**
 * Prefix of Svix / Standard Webhooks secrets: `whsec_<base64>`, the decoded bytes being the key.
 * Secrets Courseport generates have this form, so `new Webhook(secret)` works as registered.
 */
export const STANDARD_SECRET_PREFIX = 'whsec_'

/** Canonical padded base64, exactly what the Standard Webhooks and Svix libraries decode. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Key bytes of a generated secret (Standard Webhooks asks for 24 to 64). */
const GENERATED_KEY_BYTES = 32

/** A new signing secret: `whsec_` + 32 random bytes in base64 (50 characters). */
export function generateSecret(): string {
  return `${STANDARD_SECRET_PREFIX}${randomBytes(GENERATED_KEY_BYTES).toString('base64')}`
}

/**
 * The key bytes a Standard Webhooks library derives from `secret` by default, or null when it
 * would not take the string as-is (no `whsec_` prefix, or not base64 after it).
 */
export function standardWebhooksKey(secret: string): Buffer | null {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return null
  const encoded = secret.slice(STANDARD_SECRET_PREFIX.length)
  return encoded.length > 0 && BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : null
}

/**
 * The keys `webhook-signature` is computed with for one secret, each giving one `v1,` value:
 * - `whsec_<base64>`: the decoded bytes (what `new Webhook(secret)` uses), and also the secret's
 *   UTF-8 bytes, the key these docs gave before such secrets were decoded, so receivers written
 *   then keep verifying (a Standard Webhooks receiver accepts when any listed value matches);
 * - any other secret: its UTF-8 bytes, as always (`new Webhook(secret, { format: 'raw' })`).
 */
export function standardKeys(secret: string): Buffer[] {
  const utf8 = Buffer.from(secret, 'utf8')
  const decoded = standardWebhooksKey(secret)
  return decoded ? [decoded, utf8] : [utf8]
}

/**
 * The spec's signature (`X-Connect-Signature`, `X-Legacy-Signature`): HMAC-SHA256 of the raw body
 * keyed by the secret string exactly as registered (its UTF-8 bytes, `whsec_` prefix included),
 * lowercase hex — what a receiver written from the spec alone computes.
 */
export function connectSignature(secret: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

/** Standard Webhooks `v1` signature: base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`. */
export function standardSignature(
  key: string | Uint8Array,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
}

/** The secrets that sign one attempt. */
export interface SigningSecrets {
  current: string
  /** The secret before the last rotation, while its overlap lasts. */
  previous: string | null
}

export interface SignatureInput {
  body: string
  /** Null when the endpoint has no secret: no signature headers. */
  secrets: SigningSecrets | null
  deliveryId: string
  endpointId: string
  eventType: string
  /** 1-based attempt number of this send. */
  attempt: number
  /** Unix seconds of this attempt (`webhook-timestamp`). */
  timestampSeconds: number
}

/**
 * The secret the spec's headers are signed with: the previous one while a rotation's overlap
 * lasts, else the current one. The spec's headers hold one value, so one secret signs them; the
 * receiver's configured secret keeps verifying until the overlap ends, at a time the customer
 * chose and can read (`previousSecretExpiresAt`), instead of failing from the moment of rotation,
 * before anyone could have installed the new secret.
 */
export function specHeaderSecret(secrets: SigningSecrets): string {
  return secrets.previous ?? secrets.current
}

/**
 * The headers of one attempt: the spec's (`X-Webhook-ID` is the endpoint, `X-Delivery-ID` the
 * delivery, stable across attempts), the primary and legacy signatures (exactly one value each),
 * and the Standard Webhooks trio. `webhook-signature` carries the rotation overlap, as that
 * standard provides: space-separated `v1,` values, the current secret's first.
 */
export function deliveryHeaders(input: SignatureInput): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-webhook-id': input.endpointId,
    'x-delivery-id': input.deliveryId,
    'x-connect-event-type': input.eventType,
    'x-delivery-attempt': String(input.attempt),
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(input.timestampSeconds),
  }
  const { secrets } = input
  if (!secrets) return headers
  const hex = connectSignature(specHeaderSecret(secrets), input.body)
  headers['x-connect-signature'] = `sha256=${hex}`
  headers['x-legacy-signature'] = hex
  headers['x-legacy-signature-algorithm'] = 'sha256'
  const all = secrets.previous ? [secrets.current, secrets.previous] : [secrets.current]
  headers['webhook-signature'] = all
    .flatMap(standardKeys)
    .map(
      (key) => `v1,${standardSignature(key, input.deliveryId, input.timestampSeconds, input.body)}`,
    )
    .join(' ')
  return headers
}
