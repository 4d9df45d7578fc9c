import { ByteReader, ByteWriter } from './varint.codec.ts'

/**
 * The learners of one rollup row as a set of dense integers (their `report_learner_ids.n` in the
 * tenant and mode): the first number plus one, then the gaps to each next one, as varints. With
 * numbers from 0 up, a row of a hundred learners out of 40 000 takes about two bytes a learner,
 * and a date range's active learners are the bits set in a union (`LearnerBits`) instead of a
 * set of strings built from every row's JSON list.
 *
 * Every varint is then at least 1, so a 0 byte where a varint starts (a varint of 0 is the only
 * one that begins, or ends, with 0x00) can separate sets: the database concatenates a range's
 * sets with 0 bytes between them (learner-progress.repository.ts) and `addEncoded` reads them
 * all in one pass.
 */

/** Sorted distinct numbers → the stored form. */
export function encodeLearnerSet(sorted: readonly number[]): Buffer {
  const out = new ByteWriter()
  let previous = -1
  for (const n of sorted) {
    out.varint(n - previous)
    previous = n
  }
  return out.finish()
}

export function decodeLearnerSet(bytes: Uint8Array): number[] {
  const reader = new ByteReader(bytes)
  const out: number[] = []
  let n = -1
  while (!reader.done) {
    n += reader.varint()
    out.push(n)
  }
  return out
}

/** The set with `n` added, or null when it holds `n` already (the row need not be written). */
export function withLearner(bytes: Uint8Array, n: number): Buffer | null {
  const list = decodeLearnerSet(bytes)
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((list[mid] as number) < n) lo = mid + 1
    else hi = mid
  }
  if (list[lo] === n) return null
  list.splice(lo, 0, n)
  return encodeLearnerSet(list)
}

/** A union of learner numbers: one bit each, so a tenant of 40 000 learners takes 5 KB. */
export class LearnerBits {
  #words = new Uint32Array(64)

  add(n: number): void {
    const word = n >>> 5
    if (word >= this.#words.length) {
      const grown = new Uint32Array(Math.max(this.#words.length * 2, word + 1))
      grown.set(this.#words)
      this.#words = grown
    }
    const words = this.#words
    words[word] = (words[word] as number) | (1 << (n & 31))
  }

  /** Adds every number of stored sets, 0-separated (decoded in place: no array per set). */
  addEncoded(bytes: Uint8Array): void {
    let n = -1
    let i = 0
    while (i < bytes.length) {
      if (bytes[i] === 0) {
        n = -1
        i++
        continue
      }
      let gap = 0
      let scale = 1
      let b: number
      do {
        b = bytes[i++] as number
        gap += (b & 0x7f) * scale
        scale *= 0x80
      } while (b >= 0x80)
      n += gap
      this.add(n)
    }
  }

  get size(): number {
    let count = 0
    for (let w of this.#words) {
      // Population count of a 32-bit word (Hacker's Delight 5-2).
      w -= (w >>> 1) & 0x55555555
      w = (w & 0x33333333) + ((w >>> 2) & 0x33333333)
      count += (Math.imul((w + (w >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number
    }
    return count
  }
}
