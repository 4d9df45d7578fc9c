import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { normaliseCreate, normaliseUpdate } from '../../../src/modules/webhooks/webhook-input.ts'
import { AppError } from '../../../src/shared/app-error.ts'

const scope = { tenantId: 'ten_a', mode: 'live' as const }
const code = (c: string) => (err: unknown) => err instanceof AppError && err.code === c

describe('webhook body forms', () => {
  it('the current form', () => {
    assert.deepEqual(
      normaliseCreate(scope, {
        url: 'https://h.example/x',
        secret: 's'.repeat(16),
        eventScope: 'usage',
        label: ' L ',
      }),
      {
        url: 'https://h.example/x',
        secret: 's'.repeat(16),
        label: 'L',
        eventScope: 'usage',
        eventTypes: null,
      },
    )
  })

  it('secret: 16 to 512 characters (not bytes), one of secret/signingSecret', () => {
    const base = { url: 'https://h.example/', eventScope: 'all' }
    assert.throws(
      () => normaliseCreate(scope, { ...base, secret: 's'.repeat(15) }),
      code('validation_failed'),
    )
    assert.throws(
      () => normaliseCreate(scope, { ...base, secret: 's'.repeat(513) }),
      code('validation_failed'),
    )
    assert.equal(
      normaliseCreate(scope, { ...base, secret: '🔑'.repeat(16) }).secret,
      '🔑'.repeat(16),
    )
    assert.equal(
      normaliseCreate(scope, { ...base, signingSecret: 'a'.repeat(512) }).secret.length,
      512,
    )
    assert.throws(
      () =>
        normaliseCreate(scope, { ...base, secret: 'a'.repeat(16), signingSecret: 'b'.repeat(16) }),
      code('validation_failed'),
    )
  })

  it('tenant_id must be the key’s tenant; mode must be the key’s mode', () => {
    const base = { url: 'https://h.example/', eventScope: 'all', secret: 'x'.repeat(20) }
    assert.throws(
      () => normaliseCreate(scope, { ...base, tenant_id: 'ten_b' }),
      code('tenant_mismatch'),
    )
    assert.doesNotThrow(() => normaliseCreate(scope, { ...base, tenant_id: 'ten_a' }))
    assert.throws(() => normaliseCreate(scope, { ...base, mode: 'test' }), code('mode_mismatch'))
  })

  it('events narrowing a scope must stay inside it; a whole scope is stored as null', () => {
    const base = { url: 'https://h.example/', secret: 'x'.repeat(20) }
    assert.throws(
      () => normaliseCreate(scope, { ...base, eventScope: 'packages', events: ['session.failed'] }),
      code('validation_failed'),
    )
    const whole = normaliseCreate(scope, { ...base, events: ['session.*'] })
    assert.deepEqual([whole.eventScope, whole.eventTypes], ['sessions', null])
    assert.deepEqual(normaliseUpdate(scope, { events: null, eventScope: 'usage' }).subscription, {
      eventScope: 'usage',
      eventTypes: null,
    })
  })
})
