import { createHash, timingSafeEqual } from 'node:crypto'
import { randomBase62 } from '../../shared/ids.ts'

/** A random secret for a cookie or a one-time link: 43 base62 characters (≈ 256 bits). */
export function newSecretToken(): string {
  return randomBase62(43)
}

/** Only this hash of a session id or link token is stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** Equal strings, compared in time that does not depend on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest()
  const hb = createHash('sha256').update(b).digest()
  return timingSafeEqual(ha, hb)
}
