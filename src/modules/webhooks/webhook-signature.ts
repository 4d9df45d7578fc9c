import { createHmac } from 'node:crypto'

/** HMAC-SHA256 of the raw body with the endpoint secret (its UTF-8 bytes), lowercase hex. */
export function connectSignature(secret: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

/**
 * Standard Webhooks `v1` signature: base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`. The key
 * is the secret's UTF-8 bytes (Standard Webhooks libraries take it base64-encoded, see
 * docs/webhooks.md).
 */
export function standardSignature(
  secret: string | Uint8Array,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return createHmac('sha256', secret).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
}

export interface SignatureInput {
  body: string
  /** The current secret first; during a rotation's overlap also the previous one. */
  secrets: readonly string[]
  deliveryId: string
  endpointId: string
  eventType: string
  /** 1-based attempt number of this send. */
  attempt: number
  /** Unix seconds of this attempt (`webhook-timestamp`). */
  timestampSeconds: number
}

/**
 * The headers of one attempt: the spec's (`X-Webhook-ID` is the endpoint, `X-Delivery-ID` the
 * delivery, stable across attempts), the primary and legacy signatures, and the Standard Webhooks
 * trio. With two secrets (rotation overlap) each signature header lists the current secret's value
 * first and the previous one's second — `, ` separated for the spec headers, space separated for
 * `webhook-signature` as that standard defines; outside an overlap each holds exactly one value.
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
  if (input.secrets.length === 0) return headers
  const hex = input.secrets.map((s) => connectSignature(s, input.body))
  headers['x-connect-signature'] = hex.map((h) => `sha256=${h}`).join(', ')
  headers['x-legacy-signature'] = hex.join(', ')
  headers['x-legacy-signature-algorithm'] = 'sha256'
  headers['webhook-signature'] = input.secrets
    .map((s) => `v1,${standardSignature(s, input.deliveryId, input.timestampSeconds, input.body)}`)
    .join(' ')
  return headers
}
