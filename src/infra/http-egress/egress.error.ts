import type { BlockReason } from './address.policy.ts'

export type EgressErrorCode =
  | 'invalid_url' // unparseable, wrong scheme, credentials, port not allowed
  | 'blocked_address' // the host is, or resolves to, an address that must not be reached
  | 'dns_failed'
  | 'timeout' // the total time budget ran out (connect, headers or body)
  | 'too_large' // response body over the byte limit
  | 'unsupported_content_type' // 2xx response whose Content-Type the caller did not accept
  | 'tls_failed' // handshake, certificate chain or hostname verification
  | 'connection_failed' // refused, reset, unreachable, malformed response…
  | 'aborted' // the caller's own AbortSignal fired

/**
 * The one error the egress client throws. `message` names the URL host and is safe to show to
 * the API user who supplied the URL: it never contains the resolved address, which could reveal
 * internal DNS; that goes in `address` for logs.
 */
export class HttpEgressError extends Error {
  readonly code: EgressErrorCode
  /** The URL's host name (as normalised by the URL parser), when the URL parsed. */
  readonly host: string | undefined
  /** For `blocked_address`: the refused address and why. */
  readonly address: string | undefined
  readonly reason: BlockReason | undefined

  constructor(
    code: EgressErrorCode,
    message: string,
    extra: { host?: string; address?: string; reason?: BlockReason; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause })
    this.name = 'HttpEgressError'
    this.code = code
    this.host = extra.host
    this.address = extra.address
    this.reason = extra.reason
  }
}

export function isHttpEgressError(err: unknown): err is HttpEgressError {
  return err instanceof HttpEgressError
}

const REASON_TEXT: Readonly<Record<BlockReason, string>> = {
  cloud_metadata: 'a cloud metadata address',
  unparseable: 'an unrecognised address',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private network address',
  link_local: 'a link-local address',
  carrier_grade_nat: 'a carrier-grade NAT address',
  unique_local: 'a unique-local IPv6 address',
  site_local: 'a site-local IPv6 address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved or special-purpose address',
  ipv4_compatible: 'an IPv4-compatible IPv6 address',
  nat64_local: 'a local-use NAT64 address',
  not_global_unicast: 'an address outside global unicast space',
}

export function blockedError(host: string, address: string, reason: BlockReason, literal: boolean) {
  const what = literal ? `${host} is` : `${host} resolves to`
  return new HttpEgressError(
    'blocked_address',
    `${what} ${REASON_TEXT[reason]}, which outbound requests may not reach`,
    { host, address, reason },
  )
}

/** Error codes Node and OpenSSL use for certificate and handshake problems. */
function isTlsError(code: string, message: string): boolean {
  return (
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('CERT_') ||
    code.startsWith('UNABLE_TO_') ||
    code.includes('SELF_SIGNED') ||
    code === 'HOSTNAME_MISMATCH' ||
    code === 'EPROTO' ||
    /\bssl\b|\btls\b|certificate/i.test(message)
  )
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
])

/** Maps whatever undici, net or tls threw to an HttpEgressError for `host`. */
export function toEgressError(err: unknown, host: string, timeoutMs: number): HttpEgressError {
  if (err instanceof HttpEgressError) return err
  const e = err instanceof Error ? err : new Error(String(err))
  const raw: unknown = (e as Error & { code?: unknown }).code
  const code = typeof raw === 'string' ? raw : ''
  if (TIMEOUT_CODES.has(code)) {
    return new HttpEgressError('timeout', `Request to ${host} timed out after ${timeoutMs} ms`, {
      host,
      cause: e,
    })
  }
  if (isTlsError(code, e.message)) {
    return new HttpEgressError('tls_failed', `TLS with ${host} failed: ${e.message}`, {
      host,
      cause: e,
    })
  }
  const detail = code ? `${code}: ${e.message}` : e.message
  return new HttpEgressError('connection_failed', `Request to ${host} failed (${detail})`, {
    host,
    cause: e,
  })
}
