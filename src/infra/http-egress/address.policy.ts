import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

type IPv4 = ipaddr.IPv4
type IPv6 = ipaddr.IPv6

/** Why an address is refused; `null` from `blockReason` means the address is public. */
export type BlockReason =
  | 'cloud_metadata'
  | 'unparseable'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'carrier_grade_nat'
  | 'unique_local'
  | 'site_local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'ipv4_compatible'
  | 'nat64_local'
  | 'not_global_unicast'

/**
 * Cloud metadata endpoints. Listed on their own so that an allowlist entry (a CIDR covering
 * 169.254/16, say) can never exempt them, and so the public Azure wireserver is covered at all.
 */
const METADATA: readonly [IPv4 | IPv6, number][] = [
  '169.254.169.254/32', // AWS, GCP, Azure, OpenStack, DigitalOcean
  '169.254.170.2/32', // AWS ECS task metadata
  '100.100.100.200/32', // Alibaba Cloud
  '192.0.0.192/32', // Oracle Cloud
  '168.63.129.16/32', // Azure wireserver (a public address, reachable from every Azure VM)
  'fd00:ec2::254/128', // AWS IMDS over IPv6
].map((cidr) => ipaddr.parseCIDR(cidr))

const V4_REASONS: Readonly<Record<string, BlockReason>> = {
  unspecified: 'unspecified', // 0.0.0.0/8
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier_grade_nat',
  private: 'private',
}

const V6_REASONS: Readonly<Record<string, BlockReason>> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link_local',
  multicast: 'multicast',
  uniqueLocal: 'unique_local', // fc00::/7
  deprecatedSiteLocal: 'site_local',
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3')
const NAT64_LOCAL = ipaddr.parseCIDR('64:ff9b:1::/48')

function isMetadata(ip: IPv4 | IPv6): boolean {
  return METADATA.some(([net, bits]) => ip.kind() === net.kind() && ip.match(net, bits))
}

/** The IPv4 address held in 16-bit words `at` and `at + 1`, optionally bit-inverted (Teredo). */
function embeddedV4(words: readonly number[], at: number, invert = 0): IPv4 {
  const hi = (words[at] ?? 0) ^ invert
  const lo = (words[at + 1] ?? 0) ^ invert
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])
}

function v4Reason(ip: IPv4): BlockReason | null {
  if (isMetadata(ip)) return 'cloud_metadata'
  const range = ip.range()
  if (range === 'unicast') return null
  // reserved, documentation, benchmarking, 192.0.0/24, 240/4, AS112, AMT, 6to4 relay anycast…
  return V4_REASONS[range] ?? 'reserved'
}

function v6Reason(ip: IPv6): BlockReason | null {
  if (isMetadata(ip)) return 'cloud_metadata'
  const w = ip.parts
  const range = ip.range()
  // Forms that carry an IPv4 address a host or gateway will actually connect to.
  if (range === 'ipv4Mapped' || range === 'rfc6145') return v4Reason(embeddedV4(w, 6))
  if (ip.match(NAT64_LOCAL)) return 'nat64_local' // local-use NAT64: embedding is site-specific
  if (range === 'rfc6052') return v4Reason(embeddedV4(w, 6)) // 64:ff9b::/96
  if (range === '6to4') return v4Reason(embeddedV4(w, 1)) // 2002:AABB:CCDD::/48
  if (range === 'teredo') {
    // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC — server in clear, client address bit-inverted.
    const server = embeddedV4(w, 2)
    const client = embeddedV4(w, 6, 0xffff)
    return v4Reason(server) ?? v4Reason(client)
  }
  const named = V6_REASONS[range]
  if (named) return named
  // ::a.b.c.d (deprecated IPv4-compatible); never legitimate, whatever it embeds.
  if (w.slice(0, 6).every((x) => x === 0)) return 'ipv4_compatible'
  if (range !== 'unicast') return 'reserved' // documentation, benchmarking, ORCHID, discard…
  if (!ip.match(GLOBAL_UNICAST_V6)) return 'not_global_unicast'
  return null
}

/**
 * The address in the one spelling both the checks and the socket use. IPv6 goes through the
 * WHATWG parser because ipaddr reads `::1.2.3.4` as IPv4-mapped while the kernel (and the URL
 * parser) read it as IPv4-compatible. IPv4 must be a canonical dotted quad: ipaddr also accepts
 * `0x7f.1`-style spellings, which the URL parser has already normalised and resolvers never return.
 * Zone ids (`fe80::1%eth0`) are refused outright.
 */
export function canonicalAddress(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return bare
  if (!bare.includes(':') || bare.includes('%') || !ipaddr.IPv6.isValid(bare)) return null
  try {
    return new URL(`http://[${bare}]/`).hostname.slice(1, -1)
  } catch {
    return null
  }
}

function parseAddress(address: string): IPv4 | IPv6 | null {
  const canonical = canonicalAddress(address)
  return canonical === null ? null : ipaddr.parse(canonical)
}

/** The reason `address` must not be connected to, or `null` when it is a public address. */
export function blockReason(address: string): BlockReason | null {
  const ip = parseAddress(address)
  if (!ip) return 'unparseable'
  return ip.kind() === 'ipv4' ? v4Reason(ip as IPv4) : v6Reason(ip as IPv6)
}

/** True when `host` (bracketed IPv6 allowed) is an IP literal rather than a name. */
export function isIpLiteral(host: string): boolean {
  return isIP(host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host) !== 0
}

/**
 * Addresses exempted from blocking, for tests and local development only (e.g. a receiver on
 * 127.0.0.1). Entries are single addresses or CIDRs. IPv4-mapped IPv6 addresses are matched as
 * the IPv4 address they reach. Cloud metadata addresses are never exempted.
 */
export class AddressAllowlist {
  readonly #ranges: readonly [IPv4 | IPv6, number][]

  constructor(entries: readonly string[] = []) {
    this.#ranges = entries.map((entry) => {
      if (ipaddr.isValidCIDR(entry)) return ipaddr.parseCIDR(entry)
      const ip = parseAddress(entry)
      if (!ip) throw new TypeError(`allowAddresses: not an IP address or CIDR: ${entry}`)
      return [ip, ip.kind() === 'ipv4' ? 32 : 128]
    })
  }

  get size(): number {
    return this.#ranges.length
  }

  allows(address: string): boolean {
    if (this.#ranges.length === 0) return false
    let ip = parseAddress(address)
    if (!ip) return false
    if (ip.kind() === 'ipv6' && (ip as IPv6).isIPv4MappedAddress())
      ip = (ip as IPv6).toIPv4Address()
    if (isMetadata(ip)) return false
    const kind = ip.kind()
    return this.#ranges.some(([net, bits]) => net.kind() === kind && ip.match(net, bits))
  }
}

/** `blockReason` with the allowlist applied. */
export function checkAddress(address: string, allowlist: AddressAllowlist): BlockReason | null {
  const reason = blockReason(address)
  if (reason === null || allowlist.allows(address)) return null
  return reason
}
