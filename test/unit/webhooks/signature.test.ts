import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { describe, it } from 'node:test'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import { Webhook as SvixWebhook } from 'svix'
import {
  connectSignature,
  deliveryHeaders,
  generateSecret,
  standardSignature,
  standardWebhooksKey,
} from '../../../src/modules/webhooks/webhook-signature.ts'

const hmacHex = (key: string, body: string) => createHmac('sha256', key).update(body).digest('hex')

describe('webhook signatures', () => {
  it('known answer: HMAC-SHA256 of "Hello, World!" with "It\'s a Secret to Everybody"', () => {
    assert.equal(
      connectSignature("It's a Secret to Everybody", 'Hello, World!'),
      '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    )
  })

  it('Standard Webhooks: the specification’s test vector, with the secret as given there', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    const key = standardWebhooksKey(secret)
    assert.ok(key)
    assert.equal(
      standardSignature(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
      'g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    )
  })

  it('only whsec_ followed by canonical base64 is decoded, as the libraries decode it', () => {
    assert.equal(standardWebhooksKey('whsec_YWJj')?.toString(), 'abc')
    assert.equal(standardWebhooksKey('whsec_YWI=')?.toString(), 'ab')
    for (const plain of ['whsec_', 'whsec_YWI', 'whsec_a-_b', 'whsec_my secret here', 'YWJj']) {
      assert.equal(standardWebhooksKey(plain), null, plain)
    }
  })

  it('generated secrets are whsec_ + 32 random bytes, within the spec’s 16 to 512 characters', () => {
    const a = generateSecret()
    assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/)
    assert.equal(standardWebhooksKey(a)?.length, 32)
    assert.notEqual(a, generateSecret())
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
    const h = deliveryHeaders({
      ...input,
      secrets: { current: 'first-secret-0123456', previous: null },
    })
    const hex = hmacHex('first-secret-0123456', input.body)
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

  it('a whsec_ secret: the spec headers use the string as registered, webhook-signature its key', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    const h = deliveryHeaders({ ...input, secrets: { current: secret, previous: null } })
    assert.equal(h['x-connect-signature'], `sha256=${hmacHex(secret, input.body)}`)
    const decoded = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64')
    const sig = (key: string | Buffer) =>
      `v1,${standardSignature(key, 'dlv_1', input.timestampSeconds, input.body)}`
    // The decoded key first; the UTF-8 key (what receivers were told to use before) after it.
    assert.equal(h['webhook-signature'], `${sig(decoded)} ${sig(secret)}`)
  })

  it('during a rotation overlap the spec headers hold one value, by the previous secret', () => {
    const secrets = { current: 'new-secret-012345678', previous: 'old-secret-012345678' }
    const h = deliveryHeaders({ ...input, secrets })
    const old = hmacHex('old-secret-012345678', input.body)
    assert.equal(h['x-connect-signature'], `sha256=${old}`)
    assert.equal(h['x-legacy-signature'], old)
    const sig = (key: string) =>
      `v1,${standardSignature(key, 'dlv_1', input.timestampSeconds, input.body)}`
    assert.equal(h['webhook-signature'], `${sig(secrets.current)} ${sig(secrets.previous)}`)
  })

  it('without a secret no signature headers are sent', () => {
    const h = deliveryHeaders({ ...input, secrets: null })
    assert.equal(h['x-connect-signature'], undefined)
    assert.equal(h['webhook-signature'], undefined)
    assert.equal(h['x-delivery-id'], 'dlv_1')
  })

  it('both libraries verify with each kind of secret, as registered, with either secret in an overlap', () => {
    const now = { ...input, timestampSeconds: Math.floor(Date.now() / 1000) }
    const plain = 'sixteen-chars-ok'
    const generated = generateSecret()
    const svixStyle = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    const legacyGenerated = 'whs_0123456789abcdefghijABCDEFGHIJ0123456789'
    const pairs: Array<[string, string | null]> = [
      [generated, null],
      [svixStyle, null],
      [plain, null],
      [legacyGenerated, null],
      [generated, plain],
      [plain, svixStyle],
    ]
    for (const [current, previous] of pairs) {
      const h = deliveryHeaders({ ...now, secrets: { current, previous } })
      for (const secret of previous ? [current, previous] : [current]) {
        for (const lib of [StandardWebhook, SvixWebhook]) {
          const wh = secret.startsWith('whsec_')
            ? new lib(secret)
            : new lib(secret, { format: 'raw' })
          assert.doesNotThrow(() => wh.verify(now.body, h), `${lib.name} with ${secret}`)
        }
      }
    }
  })
})
