import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  createRuntime,
  endSession,
  sumIsoDurations,
  sumTimespans,
} from '../../../src/modules/scorm/data-model/index.ts'
import { api12, api2004, LEARNER } from './helpers.ts'

describe('endSession (SCORM 2004)', () => {
  test('a suspended session resumes with its data and the summed total time', () => {
    const { rt, set } = api2004({ completionThreshold: '0.8', totalTime: 'PT1M' })
    set('cmi.suspend_data', 'page=4')
    set('cmi.progress_measure', '0.9')
    set('cmi.session_time', 'PT01H059M020S')
    set('cmi.exit', 'suspend')
    rt.api.Terminate('')
    const out = endSession('2004', rt.state())
    assert.equal(out.suspended, true)
    assert.equal(out.totalTime, 'PT2H20S')
    assert.equal(out.completionStatus, 'completed')
    assert.equal(out.carry['cmi.suspend_data'], 'page=4')
    assert.equal(out.carry['cmi.exit'], undefined, 'session-only values do not carry')

    const next = createRuntime({
      version: '2004',
      initial: { ...LEARNER, entry: 'resume', totalTime: out.totalTime, values: out.carry },
    })
    next.api.Initialize('')
    assert.equal(next.api.GetValue('cmi.entry'), 'resume')
    assert.equal(next.api.GetValue('cmi.suspend_data'), 'page=4')
    assert.equal(next.api.GetValue('cmi.total_time'), 'PT2H20S')
  })

  test('suspendAll suspends whatever cmi.exit says; exitAll ends the attempt', () => {
    const { rt, set } = api2004()
    set('cmi.exit', 'normal')
    set('adl.nav.request', 'suspendAll')
    rt.api.Terminate('')
    assert.equal(endSession('2004', rt.state()).suspended, true)
    const other = api2004()
    other.set('cmi.exit', 'suspend')
    other.rt.api.Terminate('')
    assert.equal(endSession('2004', other.rt.state(), { navRequest: 'exitAll' }).suspended, false)
    assert.deepEqual(endSession('2004', other.rt.state(), { navRequest: 'exitAll' }).carry, {})
  })

  test('the scaled passing score decides success', () => {
    const { rt, set } = api2004({ scaledPassingScore: '0.7' })
    set('cmi.success_status', 'passed')
    set('cmi.score.scaled', '0.65')
    const out = endSession('2004', rt.state())
    assert.equal(out.successStatus, 'failed')
    assert.deepEqual(out.score, { scaled: '0.65' })
    assert.equal(out.values['cmi.success_status'], 'failed')
  })
})

describe('endSession (SCORM 1.2)', () => {
  test('mastery score turns a raw score into passed or failed', () => {
    const { rt, set } = api12({ masteryScore: '80' })
    set('cmi.core.score.raw', '75')
    set('cmi.core.lesson_status', 'completed')
    set('cmi.core.session_time', '00:05:00')
    const out = endSession('1.2', rt.state())
    assert.equal(out.lessonStatus, 'failed')
    assert.equal(out.successStatus, 'failed')
    assert.equal(out.totalTime, '0000:05:00.00')
  })

  test('no-credit ignores the mastery score; an unset status becomes completed, or browsed', () => {
    const noCredit = api12({ masteryScore: '80', credit: 'no-credit' })
    noCredit.set('cmi.core.score.raw', '90')
    assert.equal(endSession('1.2', noCredit.rt.state()).lessonStatus, 'completed')
    const browse = api12({ mode: 'browse' })
    assert.equal(endSession('1.2', browse.rt.state()).lessonStatus, 'browsed')
  })

  test('exit=suspend keeps the data for the next launch', () => {
    const { rt, set } = api12({ totalTime: '0001:00:00.00' })
    set('cmi.suspend_data', 'bookmark')
    set('cmi.core.exit', 'suspend')
    set('cmi.core.session_time', '0000:30:00')
    const out = endSession('1.2', rt.state())
    assert.equal(out.suspended, true)
    assert.equal(out.lessonStatus, 'not attempted')
    assert.equal(out.totalTime, '0001:30:00.00')
    assert.deepEqual(out.carry, {
      'cmi.suspend_data': 'bookmark',
      'cmi.core.lesson_status': 'not attempted',
    })
  })
})

describe('duration arithmetic', () => {
  test('ISO 8601 durations add component-wise, carrying seconds and minutes only', () => {
    assert.equal(sumIsoDurations('PT0H0M0S', 'P0Y029DT0H'), 'P29D')
    assert.equal(sumIsoDurations('PT59.5S', 'PT0.75S'), 'PT1M0.25S')
    assert.equal(sumIsoDurations('P1M', 'PT90M'), 'P1MT1H30M')
    assert.equal(sumIsoDurations('PT0S', 'PT0S'), 'PT0H0M0S')
  })

  test('CMITimespans add and clamp to the largest value', () => {
    assert.equal(sumTimespans('00:59:59.99', '00:00:00.01'), '0001:00:00.00')
    assert.equal(sumTimespans('9999:00:00', '0001:00:00'), '9999:59:59.99')
  })
})
