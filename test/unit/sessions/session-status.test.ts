import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  isFinished,
  mapLessonStatus12,
  mapStatus2004,
  allScosRollup as rollup,
  scaledFromRaw,
  scoStatus,
  sessionStatus,
} from '../../../src/modules/sessions/session-status.ts'

test('SCORM 1.2 lesson_status maps onto the spec vocabularies', () => {
  assert.deepEqual(mapLessonStatus12('passed'), { completion: 'completed', success: 'passed' })
  assert.deepEqual(mapLessonStatus12('failed'), { completion: 'completed', success: 'failed' })
  assert.deepEqual(mapLessonStatus12('completed'), { completion: 'completed', success: 'unknown' })
  assert.deepEqual(mapLessonStatus12('incomplete'), {
    completion: 'incomplete',
    success: 'unknown',
  })
  assert.deepEqual(mapLessonStatus12('browsed'), { completion: 'incomplete', success: 'unknown' })
  assert.deepEqual(mapLessonStatus12('not attempted'), {
    completion: 'not attempted',
    success: 'unknown',
  })
  assert.deepEqual(mapLessonStatus12(undefined), {
    completion: 'not attempted',
    success: 'unknown',
  })
})

test('SCORM 2004 unknown completion reads incomplete once launched, not attempted before', () => {
  assert.deepEqual(mapStatus2004('unknown', 'unknown', true), {
    completion: 'incomplete',
    success: 'unknown',
  })
  assert.deepEqual(mapStatus2004('unknown', 'unknown', false), {
    completion: 'not attempted',
    success: 'unknown',
  })
  assert.deepEqual(mapStatus2004('completed', 'passed', true), {
    completion: 'completed',
    success: 'passed',
  })
  assert.deepEqual(mapStatus2004('incomplete', 'failed', true), {
    completion: 'incomplete',
    success: 'failed',
  })
})

test('1.2 scores get a scaled value from their range, or as a percentage', () => {
  assert.equal(scaledFromRaw(85, null, null), 0.85)
  assert.equal(scaledFromRaw(15, 10, 20), 0.5)
  assert.equal(scaledFromRaw(250, null, null), 1)
  assert.equal(scaledFromRaw(null, 0, 100), null)
  const status = scoStatus(
    '1.2',
    {
      'cmi.core.lesson_status': 'passed',
      'cmi.core.score.raw': '40',
      'cmi.core.score.max': '50',
      'cmi.core.score.min': '0',
    },
    true,
  )
  assert.equal(status.scaled, 0.8)
  assert.equal(status.raw, 40)
})

test('a session completes when every item completes; a failed SCO fails it once all are done', () => {
  const done = {
    completion: 'completed',
    success: 'unknown',
    scaled: null,
    raw: null,
    min: null,
    max: null,
    progressMeasure: null,
  } as const
  const started = { ...done, completion: 'incomplete' } as const
  assert.equal(rollup(2, [done, done]).completion, 'completed')
  assert.equal(rollup(2, [done, done]).progressPercent, 100)
  assert.equal(rollup(3, [done, started]).completion, 'incomplete')
  assert.equal(rollup(4, [done, done]).progressPercent, 50)
  assert.equal(rollup(2, []).completion, 'not attempted')
  assert.equal(
    rollup(2, [
      { ...done, success: 'passed' },
      { ...done, success: 'failed' },
    ]).success,
    'failed',
  )
  const scored = rollup(2, [
    { ...done, scaled: 0.5 },
    { ...done, scaled: 1 },
  ])
  assert.equal(scored.score.scaled, 0.75)
  const single = rollup(1, [{ ...started, progressMeasure: 0.42 }])
  assert.equal(single.progressPercent, 42)
})

test('one SCO of several passing neither passes nor completes the session (issue 11.3)', () => {
  const base = {
    scaled: null,
    raw: null,
    min: null,
    max: null,
    progressMeasure: null,
  } as const
  const passed = { ...base, completion: 'completed', success: 'passed' } as const
  const passedOnly = { ...base, completion: 'incomplete', success: 'passed' } as const
  const started = { ...base, completion: 'incomplete', success: 'unknown' } as const
  const failed = { ...base, completion: 'completed', success: 'failed' } as const
  for (const version of ['1.2', '2004'] as const) {
    const first = sessionStatus(version, 8, [passed])
    assert.deepEqual([first.completion, first.success], ['incomplete', 'unknown'], version)
    assert.equal(first.progressPercent, 12.5)
    const some = sessionStatus(version, 3, [passed, passedOnly, started])
    assert.deepEqual([some.completion, some.success], ['incomplete', 'unknown'])
    const all = sessionStatus(version, 3, [passed, passedOnly, passed])
    assert.deepEqual([all.completion, all.success], ['completed', 'passed'])
    const oneFailedEarly = sessionStatus(version, 2, [failed, started])
    assert.equal(oneFailedEarly.success, 'unknown', 'failed only once every SCO is finished')
    const oneFailed = sessionStatus(version, 2, [failed, passed])
    assert.deepEqual([oneFailed.completion, oneFailed.success], ['completed', 'failed'])
  }
  assert.equal(isFinished({ completion_status: 'incomplete', success_status: 'unknown' }), false)
  assert.equal(isFinished({ completion_status: 'completed', success_status: 'failed' }), true)
})
