import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { afterTerminate } from '../../../src/browser/player/after-terminate.ts'
import { createRuntime } from '../../../src/modules/scorm/data-model/index.ts'

const LEARNER = { learnerId: 'l1', learnerName: 'Doe, Jane' }

/** Runs a real SCO session against the data model and returns what onTerminate reported. */
function session2004(values: Record<string, string>) {
  let summary: Parameters<typeof afterTerminate>[1] | undefined
  const rt = createRuntime({
    version: '2004',
    initial: LEARNER,
    onTerminate: (s) => {
      summary = s
    },
  })
  rt.api.Initialize('')
  for (const [k, v] of Object.entries(values)) assert.equal(rt.api.SetValue(k, v), 'true', k)
  rt.api.Terminate('')
  return afterTerminate('2004', summary as NonNullable<typeof summary>)
}

function session12(values: Record<string, string>) {
  let summary: Parameters<typeof afterTerminate>[1] | undefined
  const rt = createRuntime({
    version: '1.2',
    initial: LEARNER,
    onTerminate: (s) => {
      summary = s
    },
  })
  rt.api.LMSInitialize('')
  for (const [k, v] of Object.entries(values)) assert.equal(rt.api.LMSSetValue(k, v), 'true', k)
  rt.api.LMSFinish('')
  return afterTerminate('1.2', summary as NonNullable<typeof summary>)
}

describe('what the player does after Terminate (SCORM 2004)', () => {
  test('the SCO’s navigation request is followed', () => {
    assert.deepEqual(session2004({ 'adl.nav.request': 'continue' }), { kind: 'continue' })
    assert.deepEqual(session2004({ 'adl.nav.request': 'previous' }), { kind: 'previous' })
    assert.deepEqual(session2004({ 'adl.nav.request': '{target=item_3}choice' }), {
      kind: 'choice',
      target: 'item_3',
    })
    assert.deepEqual(session2004({ 'adl.nav.request': '{target=item_3}jump' }), {
      kind: 'jump',
      target: 'item_3',
    })
  })

  test('exit, exitAll, suspendAll, abandon end the course', () => {
    for (const request of ['exit', 'exitAll', 'suspendAll', 'abandon', 'abandonAll'] as const) {
      assert.deepEqual(session2004({ 'adl.nav.request': request }), {
        kind: 'end',
        reason: request,
      })
    }
    assert.deepEqual(session2004({ 'cmi.exit': 'suspend', 'adl.nav.request': 'suspendAll' }), {
      kind: 'end',
      reason: 'suspendAll',
    })
  })

  test('without a request, time-out and logout exit the course, anything else waits', () => {
    assert.deepEqual(session2004({ 'cmi.exit': 'time-out' }), { kind: 'end', reason: 'exitAll' })
    assert.deepEqual(session2004({ 'cmi.exit': 'logout' }), { kind: 'end', reason: 'exitAll' })
    assert.deepEqual(session2004({ 'cmi.exit': 'suspend' }), { kind: 'stay' })
    assert.deepEqual(session2004({ 'cmi.completion_status': 'completed' }), { kind: 'stay' })
    assert.deepEqual(session2004({}), { kind: 'stay' })
  })
})

describe('what the player does after LMSFinish (SCORM 1.2)', () => {
  test('a completed or passed SCO continues to the next item', () => {
    assert.deepEqual(session12({ 'cmi.core.lesson_status': 'completed' }), { kind: 'continue' })
    assert.deepEqual(session12({ 'cmi.core.lesson_status': 'passed' }), { kind: 'continue' })
  })

  test('failed, incomplete or suspended leaves the learner to choose', () => {
    assert.deepEqual(session12({ 'cmi.core.lesson_status': 'failed' }), { kind: 'stay' })
    assert.deepEqual(session12({ 'cmi.core.lesson_status': 'incomplete' }), { kind: 'stay' })
    assert.deepEqual(
      session12({ 'cmi.core.lesson_status': 'completed', 'cmi.core.exit': 'suspend' }),
      { kind: 'stay' },
    )
  })

  test('logout and time-out end the course', () => {
    assert.deepEqual(session12({ 'cmi.core.exit': 'logout' }), { kind: 'end', reason: 'exitAll' })
    assert.deepEqual(session12({ 'cmi.core.exit': 'time-out' }), { kind: 'end', reason: 'exitAll' })
  })
})
