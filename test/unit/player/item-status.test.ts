import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ItemStatuses, type StatusItem } from '../../../src/browser/player/item-status.ts'

const sco = (id: string, extra: Partial<StatusItem> = {}): StatusItem => ({
  id,
  title: id,
  level: 1,
  launchable: true,
  ...extra,
})
const heading = (id: string): StatusItem => ({ id, title: id, level: 0, launchable: false })
const state12 = (values: Record<string, string>) => ({ version: '1.2' as const, values })

describe('item statuses (contents marks, SCORM 1.2 prerequisites)', () => {
  test('statuses from earlier sittings give marks; an item opened now is visited', () => {
    const items = [
      sco('a', { completion_status: 'completed', success_status: 'passed' }),
      sco('b', { completion_status: 'completed', success_status: 'failed' }),
      sco('c', { completion_status: 'incomplete', success_status: 'unknown' }),
      sco('d'),
    ]
    const s = new ItemStatuses('2004', items)
    assert.deepEqual(
      items.map((i) => s.mark(i.id)),
      ['passed', 'failed', 'visited', 'none'],
    )
    s.visited('d')
    assert.equal(s.mark('d'), 'visited')
  })

  test('1.2 prerequisites: locked until the named item is passed or completed', () => {
    const items = [
      sco('a'),
      sco('b', { prerequisites: 'a' }),
      sco('c', { prerequisites: 'b=passed' }),
    ]
    const s = new ItemStatuses('1.2', items)
    assert.deepEqual(
      items.map((i) => s.state(i).locked),
      [false, true, true],
    )
    s.update('a', state12({ 'cmi.core.lesson_status': 'incomplete' }), false)
    assert.equal(s.available(items[1] as StatusItem), false)
    s.update('a', state12({ 'cmi.core.lesson_status': 'completed' }), false)
    assert.equal(s.available(items[1] as StatusItem), true)
    // LMSFinish without a status: the LMS records "completed", not "passed".
    s.update('b', state12({ 'cmi.core.credit': 'credit' }), true)
    assert.equal(s.mark('b'), 'completed')
    assert.equal(s.available(items[2] as StatusItem), false)
  })

  test('a prerequisite naming a heading (AICC block) needs every SCO under it done', () => {
    const items = [
      heading('block'),
      sco('a'),
      sco('b'),
      { ...sco('after', { prerequisites: 'block' }), level: 0 },
    ]
    const s = new ItemStatuses('1.2', items)
    assert.equal(s.statusOf('block'), 'not attempted')
    s.update('a', state12({ 'cmi.core.lesson_status': 'passed' }), false)
    assert.equal(s.statusOf('block'), 'incomplete')
    assert.equal(s.available(items[3] as StatusItem), false)
    s.update('b', state12({ 'cmi.core.lesson_status': 'completed' }), false)
    assert.equal(s.available(items[3] as StatusItem), true)
  })

  test('SCORM 2004 has no adlcp:prerequisites: nothing is locked by a stray script', () => {
    const items = [sco('a'), sco('b', { prerequisites: 'a' })]
    assert.equal(new ItemStatuses('2004', items).available(items[1] as StatusItem), true)
  })
})
