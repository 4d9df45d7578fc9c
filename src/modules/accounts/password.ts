import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

/**
 * Password hashing with scrypt (memory-hard; in Node's crypto, so no native addon, DESIGN §1).
 *
 * Parameters: N = 2^15 (cost), r = 8 (block size), p = 1 — 128 · N · r = 32 MiB of memory and
 * roughly 50–100 ms of one core per hash, OWASP's recommended minimum for scrypt. A 16-byte
 * random salt, a 32-byte key. The stored form is `scrypt$N$r$p$salt$key` (base64url), so the
 * parameters can be raised later: old hashes still verify with their own, and
 * `needsRehash` tells the caller to store a new hash at the next successful sign-in.
 */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const
const KEY_BYTES = 32
const SALT_BYTES = 16

/** Shortest password accepted (NIST SP 800-63B asks for at least 8). */
export const MIN_PASSWORD_LENGTH = 10
/** Longest accepted, so a huge input cannot make hashing costly. */
export const MAX_PASSWORD_LENGTH = 256

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }) {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 }
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  )
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, SCRYPT_PARAMS)
  const { N, r, p } = SCRYPT_PARAMS
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

function parse(stored: string) {
  const [scheme, n, r, p, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return null
  return {
    params: { N: Number(n), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt, 'base64url'),
    key: Buffer.from(key, 'base64url'),
  }
}

/** True when `password` matches `stored`; compares in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored)
  if (!parsed) return false
  const key = await derive(password, parsed.salt, parsed.params)
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key)
}

/** True when `stored` was made with other parameters than today's. */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored)
  const { N, r, p } = SCRYPT_PARAMS
  return !parsed || parsed.params.N !== N || parsed.params.r !== r || parsed.params.p !== p
}

/** A hash no password matches, verified against when the e-mail is unknown (same timing). */
export const DUMMY_HASH = `scrypt$${SCRYPT_PARAMS.N}$${SCRYPT_PARAMS.r}$${SCRYPT_PARAMS.p}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`
