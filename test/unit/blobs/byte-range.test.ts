import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { assertValidRange, clampRange } from '../../../src/infra/blobs/byte-range.ts'
import { AppError } from '../../../src/shared/app-error.ts'

describe('byte ranges', () => {
  test('are clamped to the object and unsatisfiable from its end on', () => {
    assert.deepEqual(clampRange({ start: 0, end: 9 }, 10), { start: 0, end: 9 })
    assert.deepEqual(clampRange({ start: 3 }, 10), { start: 3, end: 9 })
    assert.deepEqual(clampRange({ start: 3, end: 99 }, 10), { start: 3, end: 9 })
    assert.equal(clampRange({ start: 10 }, 10), null)
    assert.equal(clampRange({ start: 0 }, 0), null)
  })

  test('nonsense ranges are refused', () => {
    for (const range of [
      { start: -1 },
      { start: 1.5 },
      { start: 5, end: 4 },
      { start: Number.NaN },
      { start: 0, end: Number.POSITIVE_INFINITY },
    ]) {
      assert.throws(() => assertValidRange(range), AppError, JSON.stringify(range))
    }
    assertValidRange({ start: 4, end: 4 })
  })
})
