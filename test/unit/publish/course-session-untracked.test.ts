import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { startCourseSession } from '../../../src/modules/publish/course-generator/player/course-session.ts'

/** A hand-written LMS for behaviour the real run-time never shows (broken or odd LMSs). */
function oddLms(
  values: Record<string, string>,
  behaviour: { init?: unknown; throws?: boolean } = {},
) {
  const calls: string[] = []
  const api = {
    Initialize: () => {
      calls.push('Initialize')
      return behaviour.init ?? 'true'
    },
    GetValue: (e: string) => values[e] ?? '',
    SetValue: (e: string, v: string) => {
      calls.push(`${e}=${v}`)
      if (behaviour.throws) throw new Error('LMS bug')
      values[e] = v
      return 'true'
    },
    Commit: () => {
      calls.push('Commit')
      return true
    },
    Terminate: () => {
      calls.push('Terminate')
      return 'true'
    },
  }
  return { api, calls, values }
}

describe('without a working LMS the course still plays', () => {
  test('no API: navigation, resume-free start and completion work untracked', () => {
    const session = startCourseSession({ version: '2004', total: 3, api: null })
    assert.equal(session.tracking(), false)
    assert.equal(session.current(), 0)
    assert.equal(session.navigate('next'), true)
    assert.equal(session.goTo(99), true)
    assert.equal(session.current(), 2)
    assert.equal(session.completed(), true)
    session.save()
    session.end()
  })

  test('Initialize refused: nothing else is sent', () => {
    const lms = oddLms({}, { init: 'false' })
    const session = startCourseSession({ version: '2004', total: 3, api: lms.api })
    session.navigate('last')
    session.end()
    assert.equal(session.tracking(), false)
    assert.deepEqual(lms.calls, ['Initialize'])
  })

  test('an LMS that throws does not stop navigation', () => {
    const lms = oddLms({}, { throws: true })
    const session = startCourseSession({ version: '2004', total: 3, api: lms.api })
    assert.equal(session.navigate('next'), true)
    assert.equal(session.current(), 1)
    session.end()
    assert.ok(lms.calls.includes('Terminate'))
  })

  test('boolean answers count as success (some LMSs return true instead of "true")', () => {
    const lms = oddLms({}, { init: true })
    const session = startCourseSession({ version: '2004', total: 2, api: lms.api })
    assert.equal(session.tracking(), true)
  })

  test('ab-initio ignores a stale location; unusable locations and suspend data are ignored', () => {
    const stale = oddLms({ 'cmi.entry': 'ab-initio', 'cmi.location': '3' })
    assert.equal(startCourseSession({ version: '2004', total: 5, api: stale.api }).current(), 0)
    for (const location of ['abc', '0', '6', '-1', '2.5', ' 2']) {
      const lms = oddLms({
        'cmi.entry': 'resume',
        'cmi.location': location,
        'cmi.suspend_data': '{',
      })
      const session = startCourseSession({ version: '2004', total: 5, api: lms.api })
      assert.equal(session.current(), 0, location)
      assert.equal(session.viewedCount(), 1)
    }
    const resumed = oddLms({ 'cmi.entry': '', 'cmi.location': '5' })
    assert.equal(startCourseSession({ version: '2004', total: 5, api: resumed.api }).current(), 4)
  })
})
