import { isIP } from 'node:net'
import type { SecureContextOptions } from 'node:tls'
import { buildConnector } from 'undici'
import type { EgressPolicy } from './url.guard.ts'
import { resolveChecked } from './url.guard.ts'

export interface PinnedConnectorOptions {
  policy: EgressPolicy
  /** Trust roots replacing Node's bundled ones (tests, local CAs). Default: Node's bundle. */
  ca?: SecureContextOptions['ca']
  /** TCP connect + TLS handshake budget for one socket. Default: 10 000 ms. */
  connectTimeoutMs?: number
  /** Called with the host and the address each new socket was pinned to (logs, tests). */
  onConnect?: (host: string, address: string) => void
}

/**
 * An undici connector that resolves the origin's host itself, refuses the connection if any
 * address is blocked, and opens the socket to the checked address — so no second lookup (by the
 * OS or anyone) can swap in another address between check and connect (DNS rebinding). TLS keeps
 * the original host name for SNI and certificate verification; verification cannot be disabled.
 */
export function createPinnedConnector(options: PinnedConnectorOptions): buildConnector.connector {
  const inner = buildConnector({
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    rejectUnauthorized: true,
    allowH2: false,
    timeout: options.connectTimeoutMs ?? 10_000,
  })
  return (connectOptions, callback) => {
    // The origin's own host name: `connectOptions.servername` is ignored because undici may derive
    // it from a request's Host header.
    const host = connectOptions.hostname
    resolveChecked(host, options.policy).then(
      (addresses) => {
        // All answers passed the check; the first is the one the resolver prefers.
        const address = addresses[0] as string
        options.onConnect?.(host, address)
        inner(
          {
            ...connectOptions,
            hostname: address,
            // SNI must not be an IP (RFC 6066); for IP literals Node then verifies against `host`.
            servername: isIP(host) ? '' : host,
          },
          callback,
        )
      },
      (err: Error) => callback(err, null),
    )
  }
}
