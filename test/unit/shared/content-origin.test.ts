import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  audienceMatches,
  hostAudience,
  tenantContentOrigin,
  tenantLabel,
} from '../../../src/shared/content-origin.ts'

const tenant = { mode: 'tenant', contentUrl: 'https://content.example.com' } as const
const local = { mode: 'tenant', contentUrl: 'http://localhost:8081' } as const
const single = { mode: 'single', contentUrl: 'http://127.0.0.1:8081' } as const

test('labels: t + 20 base32 characters, stable, one per tenant id, case matters in the id', () => {
  const label = tenantLabel('ten_AbC123')
  assert.match(label, /^t[a-z2-7]{20}$/)
  assert.equal(tenantLabel('ten_AbC123'), label)
  assert.notEqual(tenantLabel('ten_abc123'), label)
})

test('origins: a subdomain of CONTENT_URL per tenant; CONTENT_URL itself in single mode', () => {
  const label = tenantLabel('ten_1')
  assert.equal(tenantContentOrigin(tenant, 'ten_1'), `https://${label}.content.example.com`)
  assert.equal(tenantContentOrigin(local, 'ten_1'), `http://${label}.localhost:8081`)
  assert.equal(tenantContentOrigin(single, 'ten_1'), 'http://127.0.0.1:8081')
})

test('hosts: the tenant label, the bare host, or anything else', () => {
  const label = tenantLabel('ten_1')
  assert.deepEqual(hostAudience(tenant, `${label}.content.example.com`), { kind: 'tenant', label })
  assert.deepEqual(hostAudience(tenant, `${label.toUpperCase()}.Content.Example.com:443`), {
    kind: 'tenant',
    label,
  })
  assert.deepEqual(hostAudience(tenant, 'content.example.com'), { kind: 'bare' })
  for (const host of [
    undefined,
    '',
    `${label}.content.example.com:8443`,
    `a.${label}.content.example.com`,
    `${label}.content.example.com.evil.example`,
    `${label}content.example.com`,
    `x@${label}.content.example.com`,
    'tshort.content.example.com',
  ]) {
    assert.deepEqual(hostAudience(tenant, host), { kind: 'other' }, String(host))
  }
  assert.deepEqual(hostAudience(local, `${label}.localhost:8081`), { kind: 'tenant', label })
  assert.deepEqual(hostAudience(local, `${label}.localhost`), { kind: 'other' }, 'port 80')
})

test('audience: only on its own host in tenant mode; anywhere in single mode', () => {
  const label = tenantLabel('ten_1')
  assert.equal(audienceMatches(tenant, label, `${label}.content.example.com`), true)
  assert.equal(audienceMatches(tenant, label, 'content.example.com'), false)
  assert.equal(audienceMatches(tenant, null, `${label}.content.example.com`), false)
  assert.equal(audienceMatches(tenant, tenantLabel('ten_2'), `${label}.content.example.com`), false)
  assert.equal(audienceMatches(single, null, 'anything'), true)
})
