import type { EgressErrorCode, Resolver } from '../../src/infra/http-egress/index.ts'

/**
 * The SSRF table shared by every test of outbound requests (the egress client itself, webhook
 * registration, quick publish's image_url): addresses and spellings that must never reach a
 * server listening on loopback, with the fake DNS zone they rely on.
 */
/** Names the fake resolver knows; anything else fails like an unknown name (ENOTFOUND). */
export const ZONE: Record<string, string[]> = {
  localhost: ['127.0.0.1', '::1'],
  'localhost.': ['127.0.0.1'],
  'loopback6.test': ['::1'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'public-then-private.test': ['93.184.216.34', '10.0.0.5'],
  'private-then-public.test': ['10.0.0.5', '93.184.216.34'],
  'public-then-loopback6.test': ['2606:4700::1111', '::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'compat.test': ['::127.0.0.1'],
  'metadata.google.internal': ['169.254.169.254'],
  'imds6.test': ['fd00:ec2::254'],
  'nat64.test': ['64:ff9b::7f00:1'],
  'cgnat.test': ['100.64.1.1'],
  'zone.test': ['fe80::1%lo'],
  'odd-spelling.test': ['127.1'],
  'rfc1918.test': ['192.168.0.10'],
  'empty.test': [],
}

export const zoneResolver: Resolver = async (hostname) => {
  const answers = ZONE[hostname]
  if (!answers)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
}

export type SsrfCase = [url: string, code: EgressErrorCode]

/** `{p}` is the port the receiver listens on (127.0.0.1 and ::1). */
export const SSRF_CASES: SsrfCase[] = [
  // IPv4 loopback in every spelling the WHATWG URL parser accepts
  ['https://127.0.0.1:{p}/', 'blocked_address'],
  ['https://127.0.0.2:{p}/', 'blocked_address'],
  ['https://2130706433:{p}/', 'blocked_address'], // decimal
  ['https://0177.0.0.1:{p}/', 'blocked_address'], // octal
  ['https://017700000001:{p}/', 'blocked_address'], // octal, one number
  ['https://0x7f.0.0.1:{p}/', 'blocked_address'], // hex
  ['https://0x7f000001:{p}/', 'blocked_address'], // hex, one number
  ['https://0x7f.1:{p}/', 'blocked_address'], // hex, short
  ['https://127.1:{p}/', 'blocked_address'], // short
  ['https://127.0.1:{p}/', 'blocked_address'], // short
  ['https://127.0.0.1.:{p}/', 'blocked_address'], // trailing dot
  ['https://%31%32%37.0.0.1:{p}/', 'blocked_address'], // percent-encoded
  ['https://\uff11\uff12\uff17.\uff10.\uff10.\uff11:{p}/', 'blocked_address'], // full-width
  ['https://0.0.0.0:{p}/', 'blocked_address'],
  ['https://0:{p}/', 'blocked_address'],
  // IPv6 loopback and IPv6 forms of IPv4 loopback
  ['https://[::1]:{p}/', 'blocked_address'],
  ['https://[0:0:0:0:0:0:0:1]:{p}/', 'blocked_address'],
  ['https://[::]:{p}/', 'blocked_address'],
  ['https://[::ffff:127.0.0.1]:{p}/', 'blocked_address'], // IPv4-mapped
  ['https://[::ffff:7f00:1]:{p}/', 'blocked_address'], // IPv4-mapped, hex
  ['https://[0:0:0:0:0:ffff:127.0.0.1]:{p}/', 'blocked_address'],
  ['https://[::127.0.0.1]:{p}/', 'blocked_address'], // IPv4-compatible
  ['https://[::ffff:0:7f00:1]:{p}/', 'blocked_address'], // SIIT (RFC 6145)
  ['https://[64:ff9b::127.0.0.1]:{p}/', 'blocked_address'], // NAT64 of loopback
  ['https://[64:ff9b::a00:1]:{p}/', 'blocked_address'], // NAT64 of 10.0.0.1
  ['https://[64:ff9b:1::808:808]:{p}/', 'blocked_address'], // local-use NAT64
  ['https://[2002:7f00:1::1]:{p}/', 'blocked_address'], // 6to4 of 127.0.0.1
  ['https://[2002:c0a8:101::1]:{p}/', 'blocked_address'], // 6to4 of 192.168.1.1
  ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]:{p}/', 'blocked_address'], // Teredo, client 127.0.0.1
  ['https://[2001:0:a00:1:8000:63bf:f7f7:f7f7]:{p}/', 'blocked_address'], // Teredo, server 10.0.0.1
  // private, link-local, CGNAT, ULA, multicast, broadcast, reserved
  ['https://10.0.0.1:{p}/', 'blocked_address'],
  ['https://172.16.5.4:{p}/', 'blocked_address'],
  ['https://172.31.255.255:{p}/', 'blocked_address'],
  ['https://192.168.1.1:{p}/', 'blocked_address'],
  ['https://169.254.1.1:{p}/', 'blocked_address'],
  ['https://100.64.0.1:{p}/', 'blocked_address'],
  ['https://[fe80::1]:{p}/', 'blocked_address'],
  ['https://[fc00::1]:{p}/', 'blocked_address'],
  ['https://[fd12:3456::1]:{p}/', 'blocked_address'],
  ['https://[fec0::1]:{p}/', 'blocked_address'],
  ['https://[ff02::1]:{p}/', 'blocked_address'],
  ['https://224.0.0.1:{p}/', 'blocked_address'],
  ['https://255.255.255.255:{p}/', 'blocked_address'],
  ['https://192.0.2.1:{p}/', 'blocked_address'], // documentation
  ['https://198.51.100.7:{p}/', 'blocked_address'], // documentation
  ['https://203.0.113.9:{p}/', 'blocked_address'], // documentation
  ['https://198.18.0.1:{p}/', 'blocked_address'], // benchmarking
  ['https://192.0.0.8:{p}/', 'blocked_address'], // IETF protocol assignments
  ['https://240.0.0.1:{p}/', 'blocked_address'], // reserved
  ['https://[2001:db8::1]:{p}/', 'blocked_address'], // documentation
  ['https://[100::1]:{p}/', 'blocked_address'], // discard
  ['https://[::8.8.8.8]:{p}/', 'blocked_address'], // IPv4-compatible, even of a public address
  // cloud metadata, in several spellings
  ['https://169.254.169.254:{p}/', 'blocked_address'],
  ['https://2852039166:{p}/', 'blocked_address'],
  ['https://0251.0376.0251.0376:{p}/', 'blocked_address'],
  ['https://[::ffff:a9fe:a9fe]:{p}/', 'blocked_address'],
  ['https://[fd00:ec2::254]:{p}/', 'blocked_address'],
  ['https://100.100.100.200:{p}/', 'blocked_address'],
  ['https://168.63.129.16:{p}/', 'blocked_address'],
  // names whose answers include a blocked address
  ['https://localhost:{p}/', 'blocked_address'],
  ['https://localhost.:{p}/', 'blocked_address'],
  ['https://LOCALHOST:{p}/', 'blocked_address'],
  ['https://loopback6.test:{p}/', 'blocked_address'],
  ['https://127.0.0.1.nip.io:{p}/', 'blocked_address'],
  ['https://public-then-private.test:{p}/', 'blocked_address'],
  ['https://private-then-public.test:{p}/', 'blocked_address'],
  ['https://public-then-loopback6.test:{p}/', 'blocked_address'],
  ['https://mapped.test:{p}/', 'blocked_address'],
  ['https://compat.test:{p}/', 'blocked_address'],
  ['https://metadata.google.internal:{p}/', 'blocked_address'],
  ['https://imds6.test:{p}/', 'blocked_address'],
  ['https://nat64.test:{p}/', 'blocked_address'],
  ['https://cgnat.test:{p}/', 'blocked_address'],
  ['https://zone.test:{p}/', 'blocked_address'],
  ['https://odd-spelling.test:{p}/', 'blocked_address'],
  ['https://rfc1918.test:{p}/', 'blocked_address'],
  // names that do not resolve
  ['https://empty.test:{p}/', 'dns_failed'],
  ['https://no-such-host.test:{p}/', 'dns_failed'],
  // URLs refused before any lookup
  ['http://127.0.0.1:{p}/', 'invalid_url'],
  ['http://receiver.test:{p}/', 'invalid_url'],
  ['https://user:secret@localhost:{p}/', 'invalid_url'],
  ['https://user@localhost:{p}/', 'invalid_url'],
  ['file:///etc/passwd', 'invalid_url'],
  ['ftp://127.0.0.1:{p}/', 'invalid_url'],
  ['gopher://127.0.0.1:{p}/_', 'invalid_url'],
  ['https://256.0.0.1:{p}/', 'invalid_url'],
  ['https://[fe80::1%25lo]:{p}/', 'invalid_url'],
  ['not a url', 'invalid_url'],
]
