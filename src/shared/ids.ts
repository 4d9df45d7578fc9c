import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Prefixes of public identifiers (DESIGN §5). */
export type IdPrefix =
  | 'ten'
  | 'key'
  | 'pkg'
  | 'pv'
  | 'upl'
  | 'ses'
  | 'att'
  | 'job'
  | 'dsp'
  | 'whk'
  | 'dlv'
  | 'evt'
  | 'cnv'
  | 'lrn'
  | 'stm'
  | 'usr'
  | 'scd'

/**
 * Random base62 string of `length` characters, without modulo bias
 * (bytes >= 248 are rejected and drawn again).
 */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62]
    }
  }
  return out
}

/** A new public id such as `pkg_3kT9…` (20 random base62 characters, ~119 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`
}
