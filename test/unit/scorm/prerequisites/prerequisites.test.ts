import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  type LessonStatus,
  lessonStatusOf,
  parsePrerequisites,
  prerequisitesMet,
} from '../../../../src/modules/scorm/prerequisites/index.ts'

/** A course whose items have these statuses; anything else is not in the course. */
function course(statuses: Record<string, LessonStatus>) {
  return (id: string) => statuses[id]
}

const met = (script: string, statuses: Record<string, LessonStatus>) =>
  prerequisitesMet(script, course(statuses)).met

describe('SCORM 1.2 prerequisites (aicc_script)', () => {
  test('a bare identifier needs that item passed or completed', () => {
    for (const s of ['passed', 'completed'] as const) assert.equal(met('A1', { A1: s }), true)
    for (const s of ['failed', 'incomplete', 'browsed', 'not attempted'] as const) {
      assert.equal(met('A1', { A1: s }), false, s)
    }
  })

  test('AICC examples: ~A35 is A35<>passed & A35<>completed; A33=Passed', () => {
    const all: LessonStatus[] = [
      'passed',
      'completed',
      'failed',
      'incomplete',
      'browsed',
      'not attempted',
    ]
    for (const s of all) {
      assert.equal(met('~A35', { A35: s }), met('A35<>passed & A35<>completed', { A35: s }), s)
      assert.equal(met('A33=Passed', { A33: s }), s === 'passed', s)
    }
  })

  test('& binds tighter than |; parentheses group', () => {
    const statuses = { a: 'not attempted', b: 'completed', c: 'completed' } as const
    assert.equal(met('a & b | c', statuses), true) // (a & b) | c
    assert.equal(met('a & (b | c)', statuses), false)
    assert.equal(met('~(a | b)', statuses), false)
    assert.equal(met('~a & b', statuses), true)
  })

  test('n*{set}: at least n members hold', () => {
    const statuses = { a: 'passed', b: 'failed', c: 'completed', d: 'incomplete' } as const
    assert.equal(met('2*{a,b,c,d}', statuses), true)
    assert.equal(met('3*{a,b,c,d}', statuses), false)
    assert.equal(met('1*{b, d=incomplete}', statuses), true)
    assert.equal(met('2 * { a , b } & c', statuses), false)
  })

  test('status comparisons take words, any case, and AICC one-letter forms', () => {
    assert.equal(met('x=not attempted', { x: 'not attempted' }), true)
    assert.equal(met('x = N', { x: 'not attempted' }), true)
    assert.equal(met('x=i | x=b', { x: 'browsed' }), true)
    assert.equal(met('x<>f', { x: 'failed' }), false)
    assert.equal(met('x=COMPLETED', { x: 'completed' }), true)
  })

  test('identifiers with dots, dashes and underscores', () => {
    assert.equal(met('item_1.a-2 & SCO.3', { 'item_1.a-2': 'passed', 'SCO.3': 'completed' }), true)
  })

  test('a script that cannot be used never locks the item, and says why', () => {
    for (const bad of ['a &', '(a', 'a = maybe', '2*{a', 'a b', '', '   ']) {
      const verdict = prerequisitesMet(bad, course({ a: 'not attempted' }))
      assert.equal(verdict.met, true, bad)
      if (bad.trim() !== '') assert.ok('problem' in verdict, bad)
    }
    const unknown = prerequisitesMet('nope', course({ a: 'passed' }))
    assert.deepEqual(unknown, { met: true, problem: 'no item nope in this course' })
    assert.deepEqual(prerequisitesMet(null, course({})), { met: true })
  })

  test('pathological input stays bounded', () => {
    assert.equal(parsePrerequisites('('.repeat(10_000)).ok, false)
    assert.equal(parsePrerequisites(`${'~'.repeat(100)}a`).ok, false)
    assert.equal(parsePrerequisites(`${'('.repeat(30)}a${')'.repeat(30)}`).ok, true)
  })

  test('lesson status from the stored completion/success pair', () => {
    assert.equal(lessonStatusOf('completed', 'passed'), 'passed')
    assert.equal(lessonStatusOf('completed', 'failed'), 'failed')
    assert.equal(lessonStatusOf('completed', 'unknown'), 'completed')
    assert.equal(lessonStatusOf('incomplete', 'unknown'), 'incomplete')
    assert.equal(lessonStatusOf(undefined, undefined), 'not attempted')
  })
})
