import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  type CourseSession,
  startCourseSession,
} from '../../../src/modules/publish/course-generator/player/course-session.ts'
import {
  type Api12,
  type Api2004,
  createRuntime,
  type Delta,
  endSession,
  type LaunchData,
  type Runtime,
} from '../../../src/modules/scorm/data-model/index.ts'

/**
 * The SCO's environment is the LMS's API object. These tests hand the player the project's real
 * SCORM run-time (the same one the hosted player exposes), wrapped only to record refused calls,
 * and replay sessions end to end: launch → navigate → terminate → the LMS's end-of-session rules →
 * resumed launch.
 */
const LEARNER: LaunchData = { learnerId: 'learner-1', learnerName: 'Ada Lovelace' }

function clock(start = 1_000_000) {
  let t = start
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms
    },
  }
}

interface Lms<A> {
  rt: Runtime<A>
  commits: Delta[]
  refused: string[]
}

function lms2004(initial: Partial<LaunchData> = {}): Lms<Api2004> & { api: Api2004 } {
  const commits: Delta[] = []
  const refused: string[] = []
  const rt = createRuntime({
    version: '2004',
    initial: { ...LEARNER, ...initial },
    onCommit: (d) => void commits.push(d),
  })
  const check = (call: string, result: string) => {
    if (rt.api.GetLastError() !== '0') refused.push(`${call} → ${rt.api.GetLastError()}`)
    return result
  }
  const api: Api2004 = {
    ...rt.api,
    Initialize: (a) => check('Initialize', rt.api.Initialize(a)),
    Terminate: (a) => check('Terminate', rt.api.Terminate(a)),
    GetValue: (e) => check(`GetValue ${String(e)}`, rt.api.GetValue(e)),
    SetValue: (e, v) => check(`SetValue ${String(e)}=${String(v)}`, rt.api.SetValue(e, v)),
    Commit: (a) => check('Commit', rt.api.Commit(a)),
  }
  return { rt, api, commits, refused }
}

function lms12(initial: Partial<LaunchData> = {}): Lms<Api12> & { api: Api12 } {
  const commits: Delta[] = []
  const refused: string[] = []
  const rt = createRuntime({
    version: '1.2',
    initial: { ...LEARNER, ...initial },
    onCommit: (d) => void commits.push(d),
  })
  const check = (call: string, result: string) => {
    if (rt.api.LMSGetLastError() !== '0') refused.push(`${call} → ${rt.api.LMSGetLastError()}`)
    return result
  }
  const api: Api12 = {
    ...rt.api,
    LMSInitialize: (a) => check('LMSInitialize', rt.api.LMSInitialize(a)),
    LMSFinish: (a) => check('LMSFinish', rt.api.LMSFinish(a)),
    LMSGetValue: (e) => check(`LMSGetValue ${String(e)}`, rt.api.LMSGetValue(e)),
    LMSSetValue: (e, v) => check(`LMSSetValue ${String(e)}=${String(v)}`, rt.api.LMSSetValue(e, v)),
    LMSCommit: (a) => check('LMSCommit', rt.api.LMSCommit(a)),
  }
  return { rt, api, commits, refused }
}

const value = (rt: Runtime<unknown>, element: string) => rt.state().values[element]

function walk(session: CourseSession, ...indexes: number[]) {
  for (const i of indexes) session.goTo(i)
}

describe('SCORM 2004: tracking a slide course', () => {
  test('a first launch starts at slide 1, incomplete, suspending, with progress', () => {
    const lms = lms2004()
    const session = startCourseSession({ version: '2004', total: 4, api: lms.api })
    assert.equal(session.tracking(), true)
    assert.equal(lms.rt.phase(), 'running')
    assert.equal(session.current(), 0)
    assert.equal(value(lms.rt, 'cmi.completion_status'), 'incomplete')
    assert.equal(value(lms.rt, 'cmi.exit'), 'suspend')
    assert.equal(value(lms.rt, 'cmi.location'), '1')
    assert.equal(value(lms.rt, 'cmi.progress_measure'), '0.25')
    assert.equal(lms.commits.length, 1, 'the start is committed')
    assert.deepEqual(lms.refused, [])
  })

  test('each slide change sets location and progress_measure = viewed / total, and commits', () => {
    const lms = lms2004()
    const session = startCourseSession({ version: '2004', total: 3, api: lms.api })
    assert.equal(session.navigate('next'), true)
    assert.equal(value(lms.rt, 'cmi.location'), '2')
    assert.equal(value(lms.rt, 'cmi.progress_measure'), '0.6666667')
    session.navigate('previous')
    assert.equal(value(lms.rt, 'cmi.location'), '1')
    assert.equal(value(lms.rt, 'cmi.progress_measure'), '0.6666667', 'slide 1 was seen already')
    assert.equal(session.navigate('previous'), false, 'there is nothing before slide 1')
    assert.equal(lms.commits.length, 3)
    assert.equal(value(lms.rt, 'cmi.completion_status'), 'incomplete')
    assert.deepEqual(lms.refused, [])
  })

  test('reaching the last slide completes the course; success status is left alone', () => {
    const lms = lms2004()
    const session = startCourseSession({ version: '2004', total: 5, api: lms.api })
    session.navigate('last')
    assert.equal(session.completed(), true)
    assert.equal(value(lms.rt, 'cmi.completion_status'), 'completed')
    assert.equal(value(lms.rt, 'cmi.progress_measure'), '0.4', 'two of five slides seen')
    assert.equal(lms.rt.read('cmi.success_status'), 'unknown')
    assert.equal(value(lms.rt, 'cmi.success_status'), undefined, 'never set')
    session.navigate('first')
    assert.equal(value(lms.rt, 'cmi.completion_status'), 'completed', 'going back keeps it')
    assert.deepEqual(lms.refused, [])
  })

  test('a one-slide course is complete as soon as it opens', () => {
    const lms = lms2004()
    startCourseSession({ version: '2004', total: 1, api: lms.api })
    assert.equal(value(lms.rt, 'cmi.completion_status'), 'completed')
    assert.equal(value(lms.rt, 'cmi.progress_measure'), '1')
  })

  test('ending sets session_time, commits and terminates once', () => {
    const lms = lms2004()
    const time = clock()
    const session = startCourseSession({ version: '2004', total: 3, api: lms.api, now: time.now })
    time.advance(3_723_456)
    session.end()
    assert.equal(lms.rt.phase(), 'terminated')
    assert.equal(value(lms.rt, 'cmi.session_time'), 'PT1H2M3.46S')
    assert.equal(lms.commits.at(-1)?.final, true)
    session.end()
    assert.equal(session.tracking(), false)
    assert.equal(session.navigate('next'), true, 'the page keeps working after Terminate')
    assert.deepEqual(lms.refused, [], 'nothing is called after Terminate')
  })

  test('the next launch resumes at the last slide viewed, with the slides seen before', () => {
    const first = lms2004()
    const s1 = startCourseSession({ version: '2004', total: 6, api: first.api })
    walk(s1, 1, 2, 4)
    s1.end()
    const outcome = endSession('2004', first.rt.state())
    assert.equal(outcome.suspended, true)
    assert.equal(outcome.completionStatus, 'incomplete')

    const second = lms2004({ entry: 'resume', values: outcome.carry })
    const s2 = startCourseSession({ version: '2004', total: 6, api: second.api })
    assert.equal(s2.current(), 4)
    assert.equal(s2.viewedCount(), 4)
    assert.equal(value(second.rt, 'cmi.progress_measure'), '0.6666667')
    s2.navigate('next')
    assert.equal(value(second.rt, 'cmi.completion_status'), 'completed')
    assert.equal(value(second.rt, 'cmi.progress_measure'), '0.8333333')
    assert.deepEqual([...first.refused, ...second.refused], [])
  })

  test('a completed course stays completed when resumed', () => {
    const first = lms2004()
    const s1 = startCourseSession({ version: '2004', total: 3, api: first.api })
    walk(s1, 2, 0)
    s1.end()
    const outcome = endSession('2004', first.rt.state())
    assert.equal(outcome.completionStatus, 'completed')
    const second = lms2004({ entry: 'resume', values: outcome.carry })
    const s2 = startCourseSession({ version: '2004', total: 3, api: second.api })
    assert.equal(s2.current(), 0)
    assert.equal(s2.completed(), true)
    assert.equal(value(second.rt, 'cmi.completion_status'), 'completed')
  })
})

describe('SCORM 1.2: tracking a slide course', () => {
  test('lesson_status goes incomplete → completed at the last slide; no 2004 elements', () => {
    const lms = lms12()
    const time = clock()
    const session = startCourseSession({ version: '1.2', total: 3, api: lms.api, now: time.now })
    assert.equal(value(lms.rt, 'cmi.core.lesson_status'), 'incomplete')
    assert.equal(value(lms.rt, 'cmi.core.lesson_location'), '1')
    assert.equal(value(lms.rt, 'cmi.core.exit'), 'suspend')
    session.navigate('next')
    session.navigate('next')
    assert.equal(value(lms.rt, 'cmi.core.lesson_status'), 'completed')
    time.advance(65_000)
    session.end()
    assert.equal(lms.rt.phase(), 'terminated')
    assert.equal(value(lms.rt, 'cmi.core.session_time'), '00:01:05.00')
    assert.deepEqual(lms.refused, [])
  })

  test('the next launch resumes at lesson_location with suspend_data', () => {
    const first = lms12()
    const s1 = startCourseSession({ version: '1.2', total: 10, api: first.api })
    walk(s1, 3, 7, 5)
    s1.end()
    const outcome = endSession('1.2', first.rt.state())
    assert.equal(outcome.suspended, true)
    const second = lms12({ entry: 'resume', values: outcome.carry })
    const s2 = startCourseSession({ version: '1.2', total: 10, api: second.api })
    assert.equal(s2.current(), 5)
    assert.equal(s2.viewedCount(), 4)
    assert.equal(value(second.rt, 'cmi.core.lesson_status'), 'incomplete')
    assert.deepEqual([...first.refused, ...second.refused], [])
  })

  test('a passed status set by the LMS is not overwritten', () => {
    const lms = lms12({ values: { 'cmi.core.lesson_status': 'passed' } })
    const session = startCourseSession({ version: '1.2', total: 2, api: lms.api })
    session.navigate('next')
    assert.equal(value(lms.rt, 'cmi.core.lesson_status'), 'passed')
  })
})
