import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import {
  decodeLearnerSet,
  encodeLearnerSet,
  LearnerBits,
  withLearner,
} from '../../../src/modules/reports/learner-set.ts'
import {
  addTime,
  decodeHistogram,
  encodeHistogram,
  histogramMedian,
  mergeEncoded,
  mergeHistogram,
  sparseOf,
  type TimeHistogram,
} from '../../../src/modules/reports/time-histogram.ts'

/*
 * The rollup's binary forms: a row's learner set and time histogram read back as written, and
 * what the database's concatenation of many rows gives (0-separated sets, histograms end to end)
 * reads as the union and the sum of the rows.
 */

/** Numbers are dense per tenant: a union's bitset is as long as the largest number. */
const setOf = (max: number) =>
  fc
    .uniqueArray(fc.oneof(fc.nat(300), fc.nat(max)), { maxLength: 200 })
    .map((a) => a.sort((x, y) => x - y))
const sortedSet = setOf(2 ** 31)

test('a learner set reads back as written, number 0 and large numbers included', () => {
  fc.assert(
    fc.property(sortedSet, (set) => {
      assert.deepEqual(decodeLearnerSet(encodeLearnerSet(set)), set)
    }),
  )
  assert.deepEqual(decodeLearnerSet(encodeLearnerSet([0])), [0])
  assert.equal(encodeLearnerSet([]).length, 0)
})

test('adding a learner to a set: kept sorted, and nothing to write when already there', () => {
  fc.assert(
    fc.property(sortedSet, fc.nat(400), (set, n) => {
      const added = withLearner(encodeLearnerSet(set), n)
      if (set.includes(n)) assert.equal(added, null)
      else
        assert.deepEqual(
          decodeLearnerSet(added as Buffer),
          [...set, n].sort((x, y) => x - y),
        )
    }),
  )
})

test('the union of 0-separated sets counts each learner once (what a date range reads)', () => {
  fc.assert(
    fc.property(fc.array(setOf(100_000), { maxLength: 12 }), (sets) => {
      const joined = Buffer.concat(
        sets.flatMap((s, i) =>
          i === 0 ? [encodeLearnerSet(s)] : [Buffer.of(0), encodeLearnerSet(s)],
        ),
      )
      const bits = new LearnerBits()
      bits.addEncoded(joined)
      assert.equal(bits.size, new Set(sets.flat()).size)
    }),
  )
})

test('bits: one per learner whatever the order, across word boundaries and growth', () => {
  const bits = new LearnerBits()
  const numbers = [31, 32, 0, 63, 64, 100_000, 31, 5_000_000, 4_999_999]
  for (const n of numbers) bits.add(n)
  assert.equal(bits.size, new Set(numbers).size)
})

const times = fc.array(
  fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 1e7, noNaN: true }), fc.nat(7200)),
  { maxLength: 60 },
)

function histogramOf(list: number[]): TimeHistogram {
  const h: TimeHistogram = {}
  for (const t of list) addTime(h, t, 1)
  return h
}

test('a histogram reads back as written; concatenated rows merge to the sum of the rows', () => {
  fc.assert(
    fc.property(fc.array(times, { maxLength: 8 }), (rows) => {
      const histograms = rows.map(histogramOf)
      for (const h of histograms) assert.deepEqual(decodeHistogram(encodeHistogram(h)), h)
      const dense = { counts: [], sums: [] }
      mergeEncoded(dense, Buffer.concat(histograms.map(encodeHistogram)))
      const expected: TimeHistogram = {}
      for (const h of histograms) mergeHistogram(expected, h)
      const merged = sparseOf(dense)
      assert.deepEqual(Object.keys(merged).sort(), Object.keys(expected).sort())
      for (const [bucket, [count, sum]] of Object.entries(expected)) {
        const [c, s] = merged[bucket] as [number, number]
        assert.equal(c, count)
        assert.ok(Math.abs(s - sum) <= 1e-9 * Math.max(1, sum), `${bucket}: ${s} vs ${sum}`)
      }
      assert.equal(histogramMedian(merged), histogramMedian(expected))
    }),
  )
})
