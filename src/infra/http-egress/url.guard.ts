import { promises as dns } from 'node:dns'
import { AddressAllowlist, canonicalAddress, checkAddress, isIpLiteral } from './address.policy.ts'
import { blockedError, HttpEgressError } from './egress.error.ts'

export interface ResolvedAddress {
  address: string
  family?: number
}

/** Resolves a host name to every address it has, like `dns.promises.lookup(host, {all: true})`. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>

/** What may be reached; shared by the client and by registration-time checks. */
export interface EgressPolicyOptions {
  /** Default: `dns.promises.lookup(hostname, { all: true })`. */
  resolve?: Resolver
  /**
   * Addresses or CIDRs exempt from blocking (cloud metadata addresses excepted). Only for tests
   * and local development, e.g. `['127.0.0.1', '::1']`. Default: none.
   */
  allowAddresses?: readonly string[]
  /** Default: `['https:']`. Add `'http:'` only for local development. */
  allowedProtocols?: readonly ('https:' | 'http:')[]
  /** Ports a URL may name. Default: `'any'`. */
  allowedPorts?: readonly number[] | 'any'
  /** Time allowed for one DNS resolution. Default: 10 000 ms. */
  dnsTimeoutMs?: number
}

/** The policy with defaults applied and the allowlist parsed once. */
export interface EgressPolicy {
  readonly resolve: Resolver
  readonly allowlist: AddressAllowlist
  readonly allowedProtocols: readonly string[]
  readonly allowedPorts: readonly number[] | 'any'
  readonly dnsTimeoutMs: number
}

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true })

export function buildPolicy(options: EgressPolicyOptions = {}): EgressPolicy {
  return {
    resolve: options.resolve ?? systemResolver,
    allowlist: new AddressAllowlist(options.allowAddresses),
    allowedProtocols: options.allowedProtocols ?? ['https:'],
    allowedPorts: options.allowedPorts ?? 'any',
    dnsTimeoutMs: options.dnsTimeoutMs ?? 10_000,
  }
}

/** The URL's host without IPv6 brackets, as undici and the resolver see it. */
export function bareHost(url: URL): string {
  const h = url.hostname
  return h.startsWith('[') ? h.slice(1, -1) : h
}

/**
 * Parses and validates a URL without touching the network. The WHATWG parser has already turned
 * every IPv4 spelling it accepts (2130706433, 0177.0.0.1, 0x7f.1, 127.1, full-width digits,
 * percent-encoding) into a dotted quad, and IPv6 into canonical form, so literal hosts are checked
 * here in that form.
 */
export function parseEgressUrl(input: string | URL, policy: EgressPolicy): URL {
  let url: URL
  try {
    url = new URL(String(input))
  } catch {
    throw new HttpEgressError('invalid_url', 'Invalid URL: it could not be parsed')
  }
  const host = bareHost(url)
  if (!policy.allowedProtocols.includes(url.protocol)) {
    const allowed = policy.allowedProtocols.join(', ')
    throw new HttpEgressError(
      'invalid_url',
      `URL for ${host || 'unknown host'} must use ${allowed}`,
      {
        host,
      },
    )
  }
  if (!host) throw new HttpEgressError('invalid_url', 'Invalid URL: it has no host')
  if (url.username || url.password) {
    throw new HttpEgressError('invalid_url', `URL for ${host} must not contain credentials`, {
      host,
    })
  }
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
  if (policy.allowedPorts !== 'any' && !policy.allowedPorts.includes(port)) {
    throw new HttpEgressError(
      'invalid_url',
      `URL for ${host} uses port ${port}, which is not allowed`,
      {
        host,
      },
    )
  }
  if (isIpLiteral(host)) {
    const reason = checkAddress(host, policy.allowlist)
    if (reason) throw blockedError(host, host, reason, true)
  }
  return url
}

async function lookupWithTimeout(host: string, policy: EgressPolicy) {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })),
      policy.dnsTimeoutMs,
    )
  })
  try {
    return await Promise.race([policy.resolve(host), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Resolves `host` (or takes the literal) and checks EVERY address; refuses if any one is blocked,
 * so a name answering with both a public and a private address is refused rather than raced.
 * Returns the addresses in resolver order and canonical form; the caller connects to one of
 * exactly these strings.
 */
export async function resolveChecked(host: string, policy: EgressPolicy): Promise<string[]> {
  if (isIpLiteral(host)) {
    const reason = checkAddress(host, policy.allowlist)
    if (reason) throw blockedError(host, host, reason, true)
    return [canonicalAddress(host) ?? host]
  }
  let answers: readonly ResolvedAddress[]
  try {
    answers = await lookupWithTimeout(host, policy)
  } catch (err) {
    const code = (err as { code?: unknown }).code
    throw new HttpEgressError(
      'dns_failed',
      `Could not resolve ${host}${typeof code === 'string' ? ` (${code})` : ''}`,
      { host, cause: err },
    )
  }
  if (answers.length === 0) {
    throw new HttpEgressError('dns_failed', `Could not resolve ${host} (no addresses)`, { host })
  }
  for (const { address } of answers) {
    const reason = checkAddress(address, policy.allowlist)
    if (reason) throw blockedError(host, address, reason, false)
  }
  return answers.map((a) => canonicalAddress(a.address) ?? a.address)
}

export interface RegistrationCheck {
  /** The normalised URL, fit to store. */
  url: string
  host: string
  /** Addresses the host resolved to now; deliveries resolve and check again per connection. */
  addresses: string[]
}

/**
 * Validates a receiver URL when it is registered, so a bad one is refused early with a message
 * fit for the API user. Throws HttpEgressError (`invalid_url`, `blocked_address`, `dns_failed`).
 * Passing is no guarantee for later: DNS can change, which is why every connection is checked.
 */
export async function checkUrlForRegistration(
  input: string | URL,
  options: EgressPolicyOptions | EgressPolicy = {},
): Promise<RegistrationCheck> {
  const policy = 'allowlist' in options ? options : buildPolicy(options)
  const url = parseEgressUrl(input, policy)
  const host = bareHost(url)
  const addresses = await resolveChecked(host, policy)
  return { url: url.href, host, addresses }
}
