import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  emptyProgress,
  emptyState,
  evaluateMoveOn,
  registrationStatus,
} from '../../../src/modules/cmi5/move-on.ts'
import type { Cmi5Au, Cmi5Structure } from '../../../src/modules/scorm/manifest/manifest.types.ts'

function au(id: string, moveOn: Cmi5Au['moveOn'], blockId: string | null): Cmi5Au {
  const base = { title: id, description: null, url: 'index.html', launchMethod: 'AnyWindow' }
  return {
    ...base,
    id,
    moveOn,
    blockId,
    masteryScore: null,
    activityType: null,
    launchParameters: null,
    entitlementKey: null,
  } as Cmi5Au
}

/** course: block b1 { a1 (Completed), block b2 { a2 (Passed) } }, a3 (NotApplicable) */
const course: Cmi5Structure = {
  courseId: 'c',
  blocks: [
    { id: 'b1', title: 'b1', children: ['a1', 'b2'] },
    { id: 'b2', title: 'b2', children: ['a2'] },
  ],
  aus: [au('a1', 'Completed', 'b1'), au('a2', 'Passed', 'b2'), au('a3', 'NotApplicable', null)],
}

describe('cmi5 moveOn', () => {
  test('nothing is satisfied at registration but what needs nothing', () => {
    const change = evaluateMoveOn(course, emptyState())
    assert.deepEqual(change.blocks, [])
    assert.equal(change.course, false)
  })

  test('blocks are satisfied innermost first, then the course, each once', () => {
    const done = { ...emptyProgress(), completed: true }
    const passed = { ...emptyProgress(), passed: true }
    const first = evaluateMoveOn(course, { ...emptyState(), aus: { 1: passed } })
    assert.deepEqual(first.blocks, [{ index: 1, id: 'b2' }])
    assert.equal(first.course, false)
    const second = evaluateMoveOn(course, { ...first.state, aus: { 0: done, 1: passed } })
    assert.deepEqual(second.blocks, [{ index: 0, id: 'b1' }])
    assert.equal(second.course, true)
    const third = evaluateMoveOn(course, second.state)
    assert.deepEqual(third.blocks, [])
    assert.equal(third.course, false)
  })

  test('CompletedAndPassed needs both; CompletedOrPassed either; a waived AU is satisfied', () => {
    const one = (moveOn: Cmi5Au['moveOn']): Cmi5Structure => ({
      courseId: 'c',
      blocks: [],
      aus: [au('a', moveOn, null)],
    })
    const completed = { ...emptyState(), aus: { 0: { ...emptyProgress(), completed: true } } }
    assert.equal(evaluateMoveOn(one('CompletedAndPassed'), completed).course, false)
    assert.equal(evaluateMoveOn(one('CompletedOrPassed'), completed).course, true)
    const waived = { ...emptyState(), aus: { 0: { ...emptyProgress(), waived: true } } }
    assert.equal(evaluateMoveOn(one('Passed'), waived).course, true)
  })

  test('the session is completed when the course is satisfied, failed when an AU failed', () => {
    const score = { scaled: 0.4, raw: null, min: null, max: null }
    const failed = { ...emptyState(), aus: { 1: { ...emptyProgress(), failed: true, score } } }
    const status = registrationStatus(course, failed, true)
    assert.equal(status.completion, 'incomplete')
    assert.equal(status.success, 'failed')
    assert.deepEqual(status.score, score)
    const satisfied = { ...failed, courseSatisfied: true }
    satisfied.aus = { 1: { ...emptyProgress(), failed: true, passed: true, score } }
    const after = registrationStatus(course, satisfied, true)
    assert.equal(after.completion, 'completed')
    assert.equal(after.success, 'passed')
    assert.equal(after.progressPercent, 100)
  })
})
