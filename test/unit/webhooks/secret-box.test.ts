import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SecretBox } from '../../../src/modules/webhooks/secret-box.ts'

describe('signing secrets at rest', () => {
  const box = new SecretBox('a-secret-key-of-at-least-32-characters!!')
  it('round-trips, and the sealed text does not contain the secret', () => {
    const sealed = box.seal("It's a Secret to Everybody")
    assert.ok(!sealed.includes('Secret'))
    assert.equal(box.open(sealed), "It's a Secret to Everybody")
    assert.notEqual(box.seal('same'), box.seal('same'), 'a fresh nonce each time')
  })
  it('another SECRET_KEY cannot open it, and tampering is detected', () => {
    const sealed = box.seal('whatever-secret-123')
    assert.throws(() => new SecretBox('another-secret-key-of-32-characters!!!!').open(sealed))
    const [v, iv, tag, ct] = sealed.split('.')
    const flipped = `${ct?.[0] === 'A' ? 'B' : 'A'}${ct?.slice(1)}`
    assert.throws(() => box.open([v, iv, tag, flipped].join('.')))
  })
})
