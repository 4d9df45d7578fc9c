import { createHash } from 'node:crypto'
import type { Mode } from '../../infra/db/schema.ts'
import { randomBase62 } from '../../shared/ids.ts'

/** `cp_test_` / `cp_live_` followed by 43 base62 characters (≈ 256 bits, DESIGN §5). */
export function generateApiKey(mode: Mode): string {
  return `cp_${mode}_${randomBase62(43)}`
}

/** Keys are stored only as this hash; the raw key is shown once. */
export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey).digest('hex')
}

/** The mode a key claims by its prefix, or null when the string is not shaped like a key. */
export function modeOfKey(rawKey: string): Mode | null {
  const match = /^cp_(live|test)_[0-9A-Za-z]{43}$/.exec(rawKey)
  return match ? (match[1] as Mode) : null
}

/** The part of a key safe to show in listings: `cp_test_AbCd…`. */
export function keyHint(rawKey: string): string {
  return `${rawKey.slice(0, 12)}…`
}
