import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  lmsWrites,
  readLearnerKey,
  suspendDataWithKey,
} from '../../../src/browser/dispatch-wrapper/lms-values.ts'
import type { BridgeState } from '../../../src/browser/dispatch-wrapper/protocol.ts'

const KEY = 'k'.repeat(43)

const state = (suspendData: string | null): BridgeState => ({
  completion: 'incomplete',
  success: 'unknown',
  score: { scaled: null, raw: null, min: null, max: null },
  progress: null,
  sessionSeconds: null,
  location: null,
  suspendData,
  exit: 'suspend',
  ended: false,
})

test('the learner key rides at the start of suspend data and is read back from there', () => {
  const stored = suspendDataWithKey('2004', KEY, 'page=3;answers=abc')
  assert.equal(stored, `cpk1.${KEY}|page=3;answers=abc`)
  assert.equal(readLearnerKey(stored), KEY)
  assert.equal(readLearnerKey('page=3'), '', 'suspend data of an older wrapper: no key')
  assert.equal(readLearnerKey(''), '')
  assert.equal(readLearnerKey('cpk1.short|x'), '', 'not a key we issue')
})

test('when the course data does not fit beside the key, the key is kept and the copy dropped', () => {
  const big = 'x'.repeat(4096)
  assert.equal(suspendDataWithKey('1.2', KEY, big), `cpk1.${KEY}|`)
  assert.equal(suspendDataWithKey('2004', KEY, big).length, 4096 + KEY.length + 6)
})

test('lmsWrites carries the key in every suspend data write, and writes none without data', () => {
  const writes = lmsWrites('1.2', state('abc'), KEY)
  assert.deepEqual(
    writes.find(([element]) => element === 'cmi.suspend_data'),
    ['cmi.suspend_data', `cpk1.${KEY}|abc`],
  )
  const none = lmsWrites('2004', state(null), KEY)
  assert.equal(
    none.some(([element]) => element === 'cmi.suspend_data'),
    false,
  )
  assert.deepEqual(
    lmsWrites('2004', state('abc')).find(([element]) => element === 'cmi.suspend_data'),
    ['cmi.suspend_data', 'abc'],
    'no key yet: the course data as it is',
  )
})
