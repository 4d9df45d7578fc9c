import assert from 'node:assert/strict'
import { test } from 'node:test'
import { signToken, verifyToken } from '../../../src/shared/signed-token.ts'

const secret = 'a-secret-that-is-long-enough-0123456789'
const now = new Date('2026-05-01T00:00:00Z')
const later = new Date('2026-05-01T01:00:00Z')

test('a token verifies for its purpose until it expires', () => {
  const token = signToken(secret, 'launch', { s: 'ses_1' }, later)
  const ok = verifyToken<{ s: string }>(secret, 'launch', token, now)
  assert.ok(ok.ok && ok.claims.s === 'ses_1')
  assert.deepEqual(verifyToken(secret, 'launch', token, later), { ok: false, reason: 'expired' })
})

test('another purpose, another secret or any changed character is refused', () => {
  const token = signToken(secret, 'launch', { s: 'ses_1' }, later)
  // Verified (and remembered) for its own purpose first: that must not help it anywhere else.
  assert.equal(verifyToken(secret, 'launch', token, now).ok, true)
  assert.deepEqual(verifyToken(secret, 'content', token, now), {
    ok: false,
    reason: 'bad_signature',
  })
  assert.deepEqual(verifyToken(`${secret}x`, 'launch', token, now), {
    ok: false,
    reason: 'bad_signature',
  })
  const [payload, sig] = token.split('.') as [string, string]
  const forged = Buffer.from(JSON.stringify({ s: 'ses_2', exp: 9e9 })).toString('base64url')
  assert.equal(verifyToken(secret, 'launch', `${forged}.${sig}`, now).ok, false)
  assert.equal(verifyToken(secret, 'launch', `${payload}.${sig.slice(0, -1)}A`, now).ok, false)
  for (const junk of ['', '.', 'a.b.c', 'nodot']) {
    assert.equal(verifyToken(secret, 'launch', junk, now).ok, false)
  }
})
