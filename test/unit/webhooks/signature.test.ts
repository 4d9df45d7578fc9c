import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { describe, it } from 'node:test'
import {
  connectSignature,
  deliveryHeaders,
  standardSignature,
} from '../../../src/modules/webhooks/webhook-signature.ts'

describe('webhook signatures', () => {
  it('known answer: HMAC-SHA256 of "Hello, World!" with "It\'s a Secret to Everybody"', () => {
    assert.equal(
      connectSignature("It's a Secret to Everybody", 'Hello, World!'),
      '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    )
  })

  it('Standard Webhooks: the specification’s test vector', () => {
    // From the Standard Webhooks spec: secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw (base64 key).
    const key = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64')
    assert.equal(
      standardSignature(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
      'g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    )
  })

  const input = {
    body: '{"event":"package.archived"}',
    deliveryId: 'dlv_1',
    endpointId: 'whk_1',
    eventType: 'package.archived',
    attempt: 2,
    timestampSeconds: 1_760_000_000,
  }

  it('sends the spec headers, the legacy pair and the Standard Webhooks trio', () => {
    const h = deliveryHeaders({ ...input, secrets: ['first-secret-0123456'] })
    const hex = createHmac('sha256', 'first-secret-0123456').update(input.body).digest('hex')
    assert.equal(h['x-connect-signature'], `sha256=${hex}`)
    assert.equal(h['x-legacy-signature'], hex)
    assert.equal(h['x-legacy-signature-algorithm'], 'sha256')
    assert.equal(h['x-webhook-id'], 'whk_1')
    assert.equal(h['x-delivery-id'], 'dlv_1')
    assert.equal(h['x-connect-event-type'], 'package.archived')
    assert.equal(h['webhook-id'], 'dlv_1')
    assert.equal(h['webhook-timestamp'], '1760000000')
    const expected = createHmac('sha256', 'first-secret-0123456')
      .update(`dlv_1.1760000000.${input.body}`)
      .digest('base64')
    assert.equal(h['webhook-signature'], `v1,${expected}`)
    // A receiver's constant-time check over the raw body passes.
    const received = Buffer.from(h['x-connect-signature']?.slice(7) ?? '', 'hex')
    assert.ok(timingSafeEqual(received, Buffer.from(hex, 'hex')))
  })

  it('during a rotation overlap each header carries the new value first, then the old', () => {
    const h = deliveryHeaders({
      ...input,
      secrets: ['new-secret-012345678', 'old-secret-012345678'],
    })
    const sig = (s: string) => createHmac('sha256', s).update(input.body).digest('hex')
    assert.equal(
      h['x-connect-signature'],
      `sha256=${sig('new-secret-012345678')}, sha256=${sig('old-secret-012345678')}`,
    )
    assert.equal(h['webhook-signature']?.split(' ').length, 2)
  })

  it('without a secret no signature headers are sent', () => {
    const h = deliveryHeaders({ ...input, secrets: [] })
    assert.equal(h['x-connect-signature'], undefined)
    assert.equal(h['webhook-signature'], undefined)
    assert.equal(h['x-delivery-id'], 'dlv_1')
  })
})
