import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ScoStatesTable } from '../../../src/infra/db/tables/sessions.ts'
import { valuesChars } from '../../../src/modules/runtime/delivery-record.ts'
import { LiveDeliveries, type LiveDelivery } from '../../../src/modules/runtime/live-deliveries.ts'

function delivery(id: string, lastSeq: number, stateChars = 10): LiveDelivery {
  const row = { item_id: 'sco', carry: '{}' } as ScoStatesTable
  const values = { v: 'x'.repeat(stateChars - 1) }
  const record = { r: 'x'.repeat(stateChars - 1) }
  return {
    deliveryId: id,
    itemId: 'sco',
    lastSeq,
    launchData: { learnerId: 'l', learnerName: 'L' },
    loaded: {} as LiveDelivery['loaded'],
    states: [row],
    values,
    record,
    chars: { values: valuesChars(values), record: valuesChars(record) },
  }
}

test('a later state of a delivery replaces an earlier one, never the other way round', () => {
  const live = new LiveDeliveries()
  live.remember(delivery('a', 3))
  live.remember(delivery('a', 2))
  assert.equal(live.get('a')?.lastSeq, 3)
  live.remember(delivery('a', 4))
  assert.equal(live.get('a')?.lastSeq, 4)
  live.forget('a')
  assert.equal(live.get('a'), undefined)
  assert.deepEqual(live.size, { entries: 0, chars: 0 })
})

test('the oldest deliveries are forgotten beyond the entry or character bound', () => {
  const byCount = new LiveDeliveries(2)
  for (const id of ['a', 'b', 'c']) byCount.remember(delivery(id, 1))
  assert.deepEqual(
    ['a', 'b', 'c'].map((id) => byCount.get(id) !== undefined),
    [false, true, true],
  )
  // Each entry weighs its rows' carried JSON, its values and its SCO's record: 2 + 2 × 100 here.
  const byChars = new LiveDeliveries(100, 500)
  for (const id of ['a', 'b', 'c']) byChars.remember(delivery(id, 1, 100))
  assert.deepEqual(
    ['a', 'b', 'c'].map((id) => byChars.get(id) !== undefined),
    [false, true, true],
  )
  assert.deepEqual(byChars.size, { entries: 2, chars: 404 })
  byChars.remember(delivery('huge', 1, 1000))
  assert.equal(byChars.get('huge'), undefined, 'an entry larger than the bound is not kept')
  assert.equal(byChars.size.entries, 2)
})
