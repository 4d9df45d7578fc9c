import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createRuntime } from '../../../src/modules/scorm/data-model/index.ts'
import { api12, LEARNER } from './helpers.ts'

describe('SCORM 1.2 API state machine', () => {
  test('calls before LMSInitialize answer 301 Not initialized', () => {
    const { api } = createRuntime({ version: '1.2', initial: LEARNER })
    assert.equal(api.LMSGetValue('cmi.core.student_id'), '')
    assert.equal(api.LMSGetLastError(), '301')
    assert.equal(api.LMSSetValue('cmi.core.lesson_location', 'x'), 'false')
    assert.equal(api.LMSGetLastError(), '301')
    assert.equal(api.LMSCommit(''), 'false')
    assert.equal(api.LMSGetLastError(), '301')
    assert.equal(api.LMSFinish(''), 'false')
    assert.equal(api.LMSGetLastError(), '301')
  })

  test('LMSInitialize twice is a general exception; arguments must be empty', () => {
    const { api } = createRuntime({ version: '1.2', initial: LEARNER })
    assert.equal(api.LMSInitialize('x'), 'false')
    assert.equal(api.LMSGetLastError(), '201')
    assert.equal(api.LMSInitialize(''), 'true')
    assert.equal(api.LMSInitialize(''), 'false')
    assert.equal(api.LMSGetLastError(), '101')
    assert.equal(api.LMSCommit('x'), 'false')
    assert.equal(api.LMSGetLastError(), '201')
  })

  test('after LMSFinish the API is not initialized any more', () => {
    const { api } = api12()
    assert.equal(api.LMSFinish(''), 'true')
    assert.equal(api.LMSGetValue('cmi.core.student_id'), '')
    assert.equal(api.LMSGetLastError(), '301')
    assert.equal(api.LMSFinish(''), 'false')
    assert.equal(api.LMSGetLastError(), '301')
    assert.equal(api.LMSInitialize(''), 'false')
    assert.equal(api.LMSGetLastError(), '101')
  })

  test('error strings are the 1.2 ones', () => {
    const { api } = api12()
    assert.equal(api.LMSGetErrorString('0'), 'No error')
    assert.equal(api.LMSGetErrorString('203'), 'Element not an array - cannot have count')
    assert.equal(api.LMSGetErrorString('405'), 'Incorrect Data Type')
    assert.equal(api.LMSGetErrorString('408'), '')
  })
})

describe('SCORM 1.2 data model', () => {
  test('core values supplied at launch', () => {
    const { get } = api12({ masteryScore: '80', launchData: 'page=3' })
    assert.deepEqual(get('cmi._version'), ['3.4', '0'])
    assert.deepEqual(get('cmi.core.student_id'), ['learner-1', '0'])
    assert.deepEqual(get('cmi.core.student_name'), ['Ada Lovelace', '0'])
    assert.deepEqual(get('cmi.core.lesson_status'), ['not attempted', '0'])
    assert.deepEqual(get('cmi.core.entry'), ['ab-initio', '0'])
    assert.deepEqual(get('cmi.core.total_time'), ['0000:00:00.00', '0'])
    assert.deepEqual(get('cmi.core.lesson_mode'), ['normal', '0'])
    assert.deepEqual(get('cmi.student_data.mastery_score'), ['80', '0'])
    assert.deepEqual(get('cmi.launch_data'), ['page=3', '0'])
    assert.deepEqual(get('cmi.core.lesson_location'), ['', '0'], 'unset values read as ""')
  })

  test('keywords: _children, _count and their errors', () => {
    const { get, set } = api12()
    assert.deepEqual(get('cmi.core._children'), [
      'student_id,student_name,lesson_location,credit,lesson_status,entry,score,total_time,lesson_mode,exit,session_time',
      '0',
    ])
    assert.deepEqual(get('cmi.core.score._children'), ['raw,min,max', '0'])
    assert.deepEqual(get('cmi.interactions._count'), ['0', '0'])
    assert.deepEqual(get('cmi.core.lesson_location._children'), ['', '202'])
    assert.deepEqual(get('cmi.core._count'), ['', '203'])
    assert.deepEqual(set('cmi.core._children', 'x'), ['false', '402'])
    assert.deepEqual(set('cmi.objectives._count', '1'), ['false', '402'])
    assert.deepEqual(get('cmi.core.nonsense'), ['', '401'])
  })

  test('read-only and write-only elements', () => {
    const { get, set } = api12()
    assert.deepEqual(set('cmi.core.student_id', 'x'), ['false', '403'])
    assert.deepEqual(set('cmi.core.total_time', '0001:00:00'), ['false', '403'])
    assert.deepEqual(get('cmi.core.exit'), ['', '404'])
    assert.deepEqual(get('cmi.core.session_time'), ['', '404'])
  })

  test('lesson_status: "not attempted" cannot be set by the SCO', () => {
    const { set, get } = api12()
    assert.deepEqual(set('cmi.core.lesson_status', 'not attempted'), ['false', '405'])
    for (const s of ['passed', 'completed', 'failed', 'incomplete', 'browsed']) {
      assert.deepEqual(set('cmi.core.lesson_status', s), ['true', '0'], s)
    }
    assert.deepEqual(set('cmi.core.lesson_status', 'Passed'), ['false', '405'])
    assert.deepEqual(get('cmi.core.lesson_status'), ['browsed', '0'])
  })

  test('cmi.core.exit vocabulary', () => {
    const { set } = api12()
    for (const ok of ['time-out', 'suspend', 'logout', '']) {
      assert.deepEqual(set('cmi.core.exit', ok), ['true', '0'], ok)
    }
    assert.deepEqual(set('cmi.core.exit', 'normal'), ['false', '405'])
  })

  test('session_time is a CMITimespan HHHH:MM:SS.SS', () => {
    const { set } = api12()
    for (const ok of ['0000:00:00', '00:10:30.5', '0012:34:56.78', '9999:59:59.99']) {
      assert.deepEqual(set('cmi.core.session_time', ok), ['true', '0'], ok)
    }
    for (const bad of ['1:00:00', '00:60:00', '00:00:60', 'PT1H', '00:00:00.123', '00000:00:00']) {
      assert.deepEqual(set('cmi.core.session_time', bad), ['false', '405'], bad)
    }
  })

  test('scores are CMIDecimal 0-100 or blank', () => {
    const { set } = api12()
    assert.deepEqual(set('cmi.core.score.raw', '85.5'), ['true', '0'])
    assert.deepEqual(set('cmi.core.score.raw', ''), ['true', '0'])
    assert.deepEqual(set('cmi.core.score.raw', '101'), ['false', '405'])
    assert.deepEqual(set('cmi.core.score.min', 'low'), ['false', '405'])
  })

  test('string lengths: lesson_location 255, suspend_data 4096 unless the tenant allows 64000', () => {
    const { set } = api12()
    assert.deepEqual(set('cmi.core.lesson_location', 'x'.repeat(255)), ['true', '0'])
    assert.deepEqual(set('cmi.core.lesson_location', 'x'.repeat(256)), ['false', '405'])
    assert.deepEqual(set('cmi.suspend_data', 'x'.repeat(4096)), ['true', '0'])
    assert.deepEqual(set('cmi.suspend_data', 'x'.repeat(4097)), ['false', '405'])
    const wide = api12({}, { options: { suspendDataLimit12: 64000 } })
    assert.deepEqual(wide.set('cmi.suspend_data', 'x'.repeat(64000)), ['true', '0'])
    assert.deepEqual(wide.set('cmi.suspend_data', 'x'.repeat(64001)), ['false', '405'])
  })

  test('student_preference ranges', () => {
    const { set, get } = api12()
    assert.deepEqual(get('cmi.student_preference.audio'), ['0', '0'])
    assert.deepEqual(set('cmi.student_preference.audio', '100'), ['true', '0'])
    assert.deepEqual(set('cmi.student_preference.audio', '101'), ['false', '405'])
    assert.deepEqual(set('cmi.student_preference.speed', '-100'), ['true', '0'])
    assert.deepEqual(set('cmi.student_preference.text', '2'), ['false', '405'])
    assert.deepEqual(set('cmi.student_preference.text', '0.5'), ['false', '405'])
  })

  test('objectives and interactions are created by any element, in order', () => {
    const { set, get } = api12()
    assert.deepEqual(set('cmi.objectives.1.id', 'o2'), ['false', '201'])
    assert.deepEqual(set('cmi.objectives.0.status', 'passed'), ['true', '0'])
    assert.deepEqual(set('cmi.objectives.0.id', 'obj_1'), ['true', '0'])
    assert.deepEqual(set('cmi.objectives.0.status', 'not attempted'), ['true', '0'])
    assert.deepEqual(get('cmi.objectives._count'), ['1', '0'])
    assert.deepEqual(get('cmi.objectives.0.score._children'), ['raw,min,max', '0'])
    assert.deepEqual(get('cmi.objectives.3.id'), ['', '201'])
    assert.deepEqual(set('cmi.interactions.0.id', 'q 1'), ['false', '405'])
    assert.deepEqual(set('cmi.interactions.0.id', 'q1'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.type', 'true-false'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.student_response', 't'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.student_response', 'yes'), ['false', '405'])
    assert.deepEqual(set('cmi.interactions.0.time', '13:05:00'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.time', '25:00:00'), ['false', '405'])
    assert.deepEqual(set('cmi.interactions.0.result', 'wrong'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.result', 'incorrect'), ['false', '405'])
    assert.deepEqual(set('cmi.interactions.0.correct_responses.0.pattern', 'f'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.type', 'numeric'), ['false', '405'])
    assert.deepEqual(get('cmi.interactions.0.id'), ['', '404'])
    assert.deepEqual(get('cmi.interactions.0.correct_responses._count'), ['1', '0'])
  })
})
