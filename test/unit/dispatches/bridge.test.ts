/**
 * The pure parts of the wrapper bridge: what the player's bridge makes of commits and server
 * answers, what the wrapper writes into a 1.2 or 2004 LMS for it, and message validation.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  duration2004,
  lmsWrites,
  timespan12,
} from '../../../src/browser/dispatch-wrapper/lms-values.ts'
import {
  type BridgeState,
  exactOrigin,
  message,
  readMessage,
  readState,
} from '../../../src/browser/dispatch-wrapper/protocol.ts'
import { BridgeTracker } from '../../../src/browser/player/dispatch-bridge.ts'

const session = (over: Record<string, unknown> = {}) => ({
  completion_status: 'incomplete',
  success_status: 'unknown',
  progress_percent: 40,
  score: { scaled: null, raw: null, min: null, max: null },
  ...over,
})

test('the tracker keeps the last location/suspend data/exit, sums session times per launch, ends on exitAll', () => {
  const tracker = new BridgeTracker()
  tracker.started({ items: [{ launchable: true }, { launchable: true }, { launchable: false }] })
  let state = tracker.committed(
    'dlv_1',
    { seq: 1, values: { 'cmi.location': 'p3', 'cmi.suspend_data': 'a=1' } },
    session(),
  )
  assert.equal(state.location, 'p3')
  assert.equal(state.suspendData, 'a=1')
  assert.equal(state.sessionSeconds, null)
  assert.equal(state.progress, 0.4)
  state = tracker.committed(
    'dlv_1',
    { seq: 2, final: true, values: { 'cmi.session_time': 'PT1M30S', 'cmi.exit': 'suspend' } },
    session(),
  )
  assert.equal(state.ended, false, 'one SCO of two ended: the course goes on')
  assert.equal(state.exit, 'suspend')
  assert.equal(state.suspendData, 'a=1', 'kept from the earlier commit')
  state = tracker.committed(
    'dlv_2',
    {
      seq: 1,
      final: true,
      values: { 'cmi.session_time': 'PT30S', 'cmi.exit': 'normal', 'adl.nav.request': 'exitAll' },
    },
    session({
      completion_status: 'completed',
      success_status: 'passed',
      score: { scaled: 0.9, raw: 90, min: 0, max: 100 },
    }),
  )
  assert.deepEqual(state, {
    completion: 'completed',
    success: 'passed',
    score: { scaled: 0.9, raw: 90, min: 0, max: 100 },
    progress: 0.4,
    sessionSeconds: 120,
    location: 'p3',
    suspendData: 'a=1',
    exit: 'normal',
    ended: true,
  })
})

test('a single-SCO course ends with its final commit; 1.2 times are read too', () => {
  const tracker = new BridgeTracker()
  tracker.started({ items: [{ launchable: true }] })
  const state = tracker.committed(
    'dlv_1',
    {
      seq: 4,
      final: true,
      values: { 'cmi.core.session_time': '0000:02:03.50', 'cmi.core.exit': '' },
    },
    session({ completion_status: 'completed', success_status: 'failed' }),
  )
  assert.equal(state.ended, true)
  assert.equal(state.sessionSeconds, 123.5)
  assert.equal(state.exit, 'normal')
})

const base: BridgeState = {
  completion: 'completed',
  success: 'passed',
  score: { scaled: 0.87, raw: 87, min: 0, max: 100 },
  progress: 1,
  sessionSeconds: 3725.5,
  location: '14',
  suspendData: 'x'.repeat(5000),
  exit: 'normal',
  ended: true,
}

test('1.2 LMS: passed wins over completed, 0..100 scores, CMITimespan, 4096-character suspend data', () => {
  assert.deepEqual(lmsWrites('1.2', base), [
    ['cmi.core.lesson_status', 'passed'],
    ['cmi.core.score.raw', '87'],
    ['cmi.core.score.min', '0'],
    ['cmi.core.score.max', '100'],
    ['cmi.core.lesson_location', '14'],
    ['cmi.core.exit', ''],
    ['cmi.core.session_time', '0001:02:05.50'],
  ])
  // A score on another scale becomes a percentage from the scaled score.
  const other = lmsWrites('1.2', {
    ...base,
    success: 'unknown',
    completion: 'incomplete',
    score: { scaled: 0.425, raw: 850, min: 0, max: 2000 },
    suspendData: 'short',
    exit: 'suspend',
  })
  assert.deepEqual(other.slice(0, 4), [
    ['cmi.core.lesson_status', 'incomplete'],
    ['cmi.core.score.raw', '42.5'],
    ['cmi.core.score.min', '0'],
    ['cmi.core.score.max', '100'],
  ])
  assert.ok(other.some(([e, v]) => e === 'cmi.suspend_data' && v === 'short'))
  assert.ok(other.some(([e, v]) => e === 'cmi.core.exit' && v === 'suspend'))
})

test('2004 LMS: statuses, scores, progress, ISO duration; unknown statuses are not written', () => {
  const writes = lmsWrites('2004', { ...base, suspendData: 'state' })
  assert.deepEqual(writes, [
    ['cmi.completion_status', 'completed'],
    ['cmi.success_status', 'passed'],
    ['cmi.score.scaled', '0.87'],
    ['cmi.score.raw', '87'],
    ['cmi.score.min', '0'],
    ['cmi.score.max', '100'],
    ['cmi.progress_measure', '1'],
    ['cmi.location', '14'],
    ['cmi.suspend_data', 'state'],
    ['cmi.exit', 'normal'],
    ['cmi.session_time', 'PT1H2M5.5S'],
  ])
  const unknown = lmsWrites('2004', {
    ...base,
    completion: 'unknown',
    success: 'unknown',
    score: { scaled: null, raw: null, min: null, max: null },
    progress: null,
    sessionSeconds: null,
    location: null,
    suspendData: null,
    exit: null,
  })
  assert.deepEqual(unknown, [])
  assert.equal(timespan12(0), '0000:00:00.00')
  assert.equal(duration2004(59.999), 'PT0H1M0S')
})

test('messages: only our channel and version; states are checked field by field; origins exactly', () => {
  assert.deepEqual(readMessage(message({ kind: 'ready' })), message({ kind: 'ready' }))
  for (const bad of [
    null,
    'ready',
    { channel: 'other', v: 1, kind: 'ready' },
    { channel: 'courseport.dispatch', v: 2, kind: 'ready' },
    { channel: 'courseport.dispatch', v: 1, kind: 'eval' },
    { channel: 'courseport.dispatch', v: 1, kind: 'hello', learner: { id: 1 }, lms: '2004' },
    {
      channel: 'courseport.dispatch',
      v: 1,
      kind: 'hello',
      learner: { id: 'a', name: 'b' },
      lms: '3',
    },
  ]) {
    assert.equal(readMessage(bad), null, JSON.stringify(bad))
  }
  assert.equal(readState({ ...base, completion: 'done' }), null)
  assert.deepEqual(readState({ ...base, exit: 'logout', score: { raw: '87' } }), {
    ...base,
    exit: null,
    score: { scaled: null, raw: null, min: null, max: null },
  })
  assert.equal(exactOrigin('https://lms.example'), 'https://lms.example')
  for (const bad of ['https://lms.example/', 'javascript:x', 'null', '', 'https://LMS.example']) {
    assert.equal(exactOrigin(bad), null, bad)
  }
})
