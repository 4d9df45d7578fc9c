import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import ipaddr from 'ipaddr.js'
import {
  AddressAllowlist,
  blockReason,
  canonicalAddress,
  checkAddress,
} from '../../../src/infra/http-egress/address.policy.ts'

describe('address policy', () => {
  it('lets public addresses through, including IPv6 forms that embed a public IPv4', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '172.32.0.1', // just outside 172.16/12
      '100.128.0.1', // just outside 100.64/10
      '2606:4700::1111',
      '2a00:1450:4001:80e::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808', // NAT64 of 8.8.8.8
      '2002:808:808::1', // 6to4 of 8.8.8.8
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo: server 65.54.227.120, client 8.8.8.8
    ]) {
      assert.equal(blockReason(address), null, address)
    }
  })

  it('names the reason for blocked addresses', () => {
    const expected: Record<string, string> = {
      '127.0.0.1': 'loopback',
      '0.1.2.3': 'unspecified',
      '10.1.2.3': 'private',
      '172.20.0.1': 'private',
      '192.168.0.1': 'private',
      '169.254.0.1': 'link_local',
      '100.64.0.1': 'carrier_grade_nat',
      '224.0.0.251': 'multicast',
      '255.255.255.255': 'broadcast',
      '192.0.2.1': 'reserved',
      '198.19.255.255': 'reserved',
      '169.254.169.254': 'cloud_metadata',
      '100.100.100.200': 'cloud_metadata',
      '168.63.129.16': 'cloud_metadata',
      'fd00:ec2::254': 'cloud_metadata',
      '::1': 'loopback',
      '::': 'unspecified',
      'fe80::1': 'link_local',
      'fd00::1': 'unique_local',
      'ff02::1': 'multicast',
      '::ffff:10.0.0.1': 'private',
      '::7f00:1': 'ipv4_compatible',
      '::127.0.0.1': 'ipv4_compatible', // not IPv4-mapped, whatever ipaddr.js thinks
      '64:ff9b::a9fe:a9fe': 'cloud_metadata',
      '64:ff9b:1::1': 'nat64_local',
      '2002:a00:1::': 'private',
      '2001:db8::1': 'reserved',
      '4000::1': 'not_global_unicast',
      'fe80::1%eth0': 'unparseable',
      '127.1': 'unparseable', // resolvers never answer like this; refuse rather than guess
      localhost: 'unparseable',
    }
    for (const [address, reason] of Object.entries(expected)) {
      assert.equal(blockReason(address), reason, address)
    }
  })

  it('canonicalises the spelling used for both the check and the socket', () => {
    assert.equal(canonicalAddress('::127.0.0.1'), '::7f00:1')
    assert.equal(canonicalAddress('[0:0:0:0:0:FFFF:7F00:0001]'), '::ffff:7f00:1')
    assert.equal(canonicalAddress('127.0.0.1'), '127.0.0.1')
    assert.equal(canonicalAddress('0177.0.0.1'), null)
  })

  it('allowlist exempts listed addresses and CIDRs, never metadata', () => {
    const allow = new AddressAllowlist(['127.0.0.1', '::1', '10.9.0.0/16', '169.254.0.0/16'])
    assert.equal(checkAddress('127.0.0.1', allow), null)
    assert.equal(checkAddress('::ffff:127.0.0.1', allow), null) // same destination
    assert.equal(checkAddress('::1', allow), null)
    assert.equal(checkAddress('10.9.8.7', allow), null)
    assert.equal(checkAddress('127.0.0.2', allow), 'loopback')
    assert.equal(checkAddress('10.10.0.1', allow), 'private')
    assert.equal(checkAddress('169.254.1.1', allow), null)
    assert.equal(checkAddress('169.254.169.254', allow), 'cloud_metadata')
    assert.throws(() => new AddressAllowlist(['localhost']), TypeError)
  })

  it('property: every IPv6 form of a blocked IPv4 address is blocked too', () => {
    const octet = fc.integer({ min: 0, max: 255 })
    const v4 = fc.tuple(octet, octet, octet, octet).map((o) => new ipaddr.IPv4(o))
    fc.assert(
      fc.property(v4, (ip) => {
        const [a = 0, b = 0, c = 0, d = 0] = ip.octets
        const hi = ((a << 8) | b).toString(16)
        const lo = ((c << 8) | d).toString(16)
        const blocked = blockReason(ip.toString()) !== null
        for (const form of [`::ffff:${hi}:${lo}`, `64:ff9b::${hi}:${lo}`, `2002:${hi}:${lo}::1`]) {
          assert.equal(blockReason(form) !== null, blocked, `${ip.toString()} as ${form}`)
        }
        assert.notEqual(blockReason(`::${hi}:${lo}`), null) // IPv4-compatible: always refused
      }),
      { numRuns: 2_000 },
    )
  })
})
