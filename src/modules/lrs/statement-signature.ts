import { createVerify, X509Certificate } from 'node:crypto'
import {
  canonicalJson,
  comparableDuration,
  invalid,
  isObject,
  type JsonObject,
} from './xapi-primitives.ts'

const ALGORITHMS: Record<string, string> = {
  RS256: 'RSA-SHA256',
  RS384: 'RSA-SHA384',
  RS512: 'RSA-SHA512',
}

function decodeJson(part: string, what: string): JsonObject {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
    if (isObject(value)) return value
  } catch {}
  invalid('signature', `the JWS ${what} is not a JSON object`)
}

/** What a signature covers: the statement without the properties the LRS sets or the JWS adds. */
function signedPart(statement: JsonObject): string {
  const { authority, stored, version, attachments, id, ...rest } = statement
  void authority
  void stored
  void version
  void attachments
  void id
  if (isObject(rest.result) && typeof rest.result.duration === 'string') {
    rest.result = { ...rest.result, duration: comparableDuration(rest.result.duration) }
  }
  return canonicalJson(rest)
}

/**
 * Checks a signed statement's JWS (xAPI "Signed Statements"): compact serialisation, an RS256,
 * RS384 or RS512 header, a payload equivalent to the statement, and — when the header carries
 * an `x5c` chain — a signature that verifies with its first certificate.
 */
export function verifyStatementSignature(statement: JsonObject, jws: string): void {
  const parts = jws.trim().split('.')
  if (parts.length !== 3) invalid('signature', 'must be a JWS in compact serialisation')
  const [headerPart = '', payloadPart = '', signaturePart = ''] = parts
  const header = decodeJson(headerPart, 'header')
  const algorithm = typeof header.alg === 'string' ? ALGORITHMS[header.alg] : undefined
  if (!algorithm) invalid('signature', 'the JWS algorithm must be RS256, RS384 or RS512')
  const payload = decodeJson(payloadPart, 'payload')
  if (signedPart(payload) !== signedPart(statement)) {
    invalid('signature', 'the JWS payload does not match the statement')
  }
  if (Array.isArray(header.x5c) && typeof header.x5c[0] === 'string') {
    let valid = false
    try {
      const cert = new X509Certificate(Buffer.from(header.x5c[0], 'base64'))
      valid = createVerify(algorithm)
        .update(`${headerPart}.${payloadPart}`)
        .verify(cert.publicKey, Buffer.from(signaturePart, 'base64url'))
    } catch {
      valid = false
    }
    if (!valid) invalid('signature', 'the JWS signature does not verify with its x5c certificate')
  }
}
