import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { signUploadToken, verifyUploadToken } from '../../../src/infra/blobs/upload-token.ts'

const SECRET = 'a-secret-of-at-least-16-bytes'
const NOW = new Date('2026-03-01T12:00:00.000Z')
const claims = {
  key: 'ten_1/test/uploads/upl_1/course.zip',
  contentType: 'application/zip',
  contentLength: 123_456,
  expiresAt: new Date('2026-03-01T12:15:00.000Z'),
}

function flipChar(text: string, index: number): string {
  const c = text[index]
  return text.slice(0, index) + (c === 'A' ? 'B' : 'A') + text.slice(index + 1)
}

describe('upload tokens', () => {
  test('sign then verify returns the claims', () => {
    const token = signUploadToken(SECRET, claims)
    assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    assert.deepEqual(verifyUploadToken(SECRET, token, NOW), { ok: true, claims })
  })

  test('optional claims stay absent', () => {
    const token = signUploadToken(SECRET, { key: 'a/b.zip', expiresAt: claims.expiresAt })
    assert.deepEqual(verifyUploadToken(SECRET, token, NOW), {
      ok: true,
      claims: { key: 'a/b.zip', expiresAt: claims.expiresAt },
    })
  })

  test('expiry is checked against the given time, to the second', () => {
    const token = signUploadToken(SECRET, claims)
    const justBefore = new Date(claims.expiresAt.getTime() - 1)
    assert.equal(verifyUploadToken(SECRET, token, justBefore).ok, true)
    assert.deepEqual(verifyUploadToken(SECRET, token, claims.expiresAt), {
      ok: false,
      reason: 'expired',
    })
    // Sub-second expiries round up: the token never dies earlier than asked.
    const odd = signUploadToken(SECRET, {
      ...claims,
      expiresAt: new Date('2026-03-01T12:15:00.400Z'),
    })
    assert.equal(verifyUploadToken(SECRET, odd, new Date('2026-03-01T12:15:00.900Z')).ok, true)
  })

  test('any change to the payload or signature is a bad signature', () => {
    const token = signUploadToken(SECRET, claims)
    const [payload = '', signature = ''] = token.split('.')
    for (let i = 0; i < payload.length; i += 7) {
      const tampered = `${flipChar(payload, i)}.${signature}`
      assert.deepEqual(verifyUploadToken(SECRET, tampered, NOW), {
        ok: false,
        reason: 'bad_signature',
      })
    }
    for (let i = 0; i < signature.length; i++) {
      const tampered = `${payload}.${flipChar(signature, i)}`
      assert.deepEqual(verifyUploadToken(SECRET, tampered, NOW), {
        ok: false,
        reason: 'bad_signature',
      })
    }
    // A payload re-signed by someone without the secret: names another tenant's key.
    const forged = Buffer.from(
      JSON.stringify({ k: 'ten_2/live/x.zip', exp: Math.ceil(claims.expiresAt.getTime() / 1000) }),
    ).toString('base64url')
    assert.deepEqual(verifyUploadToken(SECRET, `${forged}.${signature}`, NOW), {
      ok: false,
      reason: 'bad_signature',
    })
  })

  test('another secret does not verify', () => {
    const token = signUploadToken(SECRET, claims)
    assert.deepEqual(verifyUploadToken(`${SECRET}x`, token, NOW), {
      ok: false,
      reason: 'bad_signature',
    })
  })

  test('garbage is malformed, not an exception', () => {
    for (const token of ['', '.', 'abc', 'a.b.c', 'abc.', '.abc', 'a b.c', 'ab+/.cd==', '☃.☃']) {
      assert.deepEqual(
        verifyUploadToken(SECRET, token, NOW),
        { ok: false, reason: 'malformed' },
        token,
      )
    }
  })

  test('a validly signed payload with the wrong shape is malformed', () => {
    const token = signUploadToken(SECRET, { key: '', expiresAt: claims.expiresAt })
    assert.deepEqual(verifyUploadToken(SECRET, token, NOW), { ok: false, reason: 'malformed' })
  })

  test('short secrets are refused', () => {
    assert.throws(() => signUploadToken('short', claims), /at least 16 bytes/)
    assert.throws(() => verifyUploadToken('', 'a.b', NOW), /at least 16 bytes/)
  })
})
