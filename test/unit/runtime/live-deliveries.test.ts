import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ScoStatesTable } from '../../../src/infra/db/tables/sessions.ts'
import { valuesChars } from '../../../src/modules/runtime/delivery-record.ts'
import { LiveDeliveries, type LiveDelivery } from '../../../src/modules/runtime/live-deliveries.ts'
import { ModelBase } from '../../../src/modules/scorm/data-model/model-base.ts'

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
    model: new ModelBase(values, new Map(), valuesChars(values)),
    record,
    recordChars: valuesChars(record),
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

test("a commit's changes reach the kept values and record when it is remembered, not before", () => {
  const live = new LiveDeliveries()
  const first = delivery('a', 1)
  live.remember(first)
  const writes = { values: new Map([['v', 'new']]), counts: new Map([['c', 2]]), size: 4 }
  const next = { ...first, lastSeq: 2 }
  assert.equal(first.model.get('v'), 'x'.repeat(9), 'nothing folded before it is remembered')
  live.remember(next, { writes, record: { r: 'new', s: 'added' } })
  const kept = live.get('a')
  assert.equal(kept?.model.get('v'), 'new')
  assert.equal(kept?.model.count('c'), 2)
  assert.equal(kept?.model.size, 4)
  assert.deepEqual({ ...kept?.record }, { r: 'new', s: 'added' })

  live.remember({ ...kept, lastSeq: 3 } as LiveDelivery)
  live.remember({ ...first, lastSeq: 2 }, { writes, record: { r: 'stale' } })
  assert.equal(live.get('a')?.record.r, 'new', 'a superseded commit folds nothing')
})
