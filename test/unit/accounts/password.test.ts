import assert from 'node:assert/strict'
import { randomBytes, scryptSync } from 'node:crypto'
import { test } from 'node:test'
import {
  DUMMY_HASH,
  hashPassword,
  needsRehash,
  SCRYPT_PARAMS,
  verifyPassword,
} from '../../../src/modules/accounts/password.ts'

test('a hash carries its scrypt parameters and verifies only its own password', async () => {
  const stored = await hashPassword('correct horse battery')
  const { N, r, p } = SCRYPT_PARAMS
  assert.match(stored, new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$[\\w-]{22}\\$[\\w-]{43}$`))
  assert.equal(await verifyPassword('correct horse battery', stored), true)
  assert.equal(await verifyPassword('correct horse batterY', stored), false)
  assert.notEqual(await hashPassword('correct horse battery'), stored, 'a new salt each time')
  assert.equal(needsRehash(stored), false)
})

test('a hash made with older parameters still verifies, and asks to be rehashed', async () => {
  const salt = randomBytes(16)
  const key = scryptSync('old password here', salt, 32, { N: 2 ** 14, r: 8, p: 1 })
  const old = `scrypt$${2 ** 14}$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`
  assert.equal(await verifyPassword('old password here', old), true)
  assert.equal(needsRehash(old), true)
})

test('the dummy hash and malformed hashes match no password', async () => {
  assert.equal(await verifyPassword('', DUMMY_HASH), false)
  assert.equal(await verifyPassword('x', 'not-a-hash'), false)
})
