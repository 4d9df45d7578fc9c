import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  createRuntime,
  type Delta,
  deltaPosition,
  initialValues,
  modelBaseOf,
  validateDelta,
} from '../../../src/modules/scorm/data-model/index.ts'
import { LEARNER } from './helpers.ts'

const initial = {
  ...LEARNER,
  completionThreshold: '0.5',
  sharedData: [{ id: 'bank', writable: false }],
}

describe('validateDelta', () => {
  test('re-applies what the player accepted and arrives at the same state', () => {
    const deltas: Delta[] = []
    const rt = createRuntime({ version: '2004', initial, onCommit: (d) => void deltas.push(d) })
    rt.api.Initialize('')
    rt.api.SetValue('cmi.interactions.0.id', 'q1')
    rt.api.SetValue('cmi.interactions.0.type', 'choice')
    rt.api.SetValue('cmi.interactions.0.correct_responses.0.pattern', 'a[,]b')
    rt.api.SetValue('cmi.progress_measure', '0.7')
    rt.api.Commit('')
    rt.api.SetValue('cmi.interactions.0.learner_response', 'a')
    rt.api.Terminate('')

    let state = undefined as ReturnType<typeof validateDelta>['state'] | undefined
    for (const d of deltas) {
      const r = validateDelta('2004', d, state ? { initial, state } : { initial })
      assert.deepEqual(r.errors, [])
      state = r.state
    }
    assert.deepEqual(state, rt.state())
  })

  test('over a kept base: the same result as over the values, the base moved only by advance', () => {
    const deltas: Delta[] = []
    const rt = createRuntime({ version: '2004', initial, onCommit: (d) => void deltas.push(d) })
    rt.api.Initialize('')
    for (let n = 0; n < 3; n++) {
      rt.api.SetValue(`cmi.interactions.${n}.id`, `q${n}`)
      rt.api.SetValue(`cmi.interactions.${n}.type`, 'choice')
      rt.api.Commit('')
    }
    rt.api.SetValue('cmi.location', 'end')
    rt.api.Terminate('')
    // A new interaction must follow the last: the base's counts say where the array ends.
    const values = { 'cmi.interactions.3.id': 'q3', 'cmi.interactions.5.id': 'out of order' }
    deltas.push({ seq: deltas.length + 1, fromSeq: deltas.length, final: false, values })

    const base = modelBaseOf('2004', initialValues('2004', initial))
    let state = undefined as ReturnType<typeof validateDelta>['state'] | undefined
    for (const d of deltas) {
      const before = { ...base.values }
      const overBase = validateDelta('2004', d, { initial, base })
      const overValues = validateDelta('2004', d, state ? { initial, state } : { initial })
      assert.deepEqual(overBase.accepted, overValues.accepted)
      assert.deepEqual(overBase.errors, overValues.errors)
      assert.equal(overBase.chars, overValues.chars)
      assert.deepEqual({ ...overBase.state.values }, overValues.state.values)
      assert.deepEqual({ ...base.values }, before, 'validating leaves the base as it was')
      base.advance(overBase.writes)
      assert.equal(base.size, overValues.chars)
      state = overValues.state
    }
    assert.deepEqual({ ...base.values }, state?.values)
    assert.equal(base.get('cmi.interactions.3.id'), 'q3')
    assert.equal(base.get('cmi.interactions.5.id'), undefined)
  })

  test('ignores read-only elements and reports bad ones with the SetValue code', () => {
    const r = validateDelta(
      '2004',
      {
        seq: 1,
        fromSeq: 0,
        final: false,
        values: {
          'cmi.learner_id': 'someone-else',
          'cmi.completion_threshold': '0',
          'adl.data.0.store': 'not allowed',
          'cmi.score.scaled': '2',
          'cmi.bogus': 'x',
          'cmi.location': 'page-3',
          'cmi.objectives.5.id': 'gap',
        },
      },
      { initial },
    )
    assert.deepEqual(r.accepted, { 'cmi.location': 'page-3' })
    assert.deepEqual(r.ignored.sort(), [
      'adl.data.0.store',
      'cmi.completion_threshold',
      'cmi.learner_id',
    ])
    assert.deepEqual(r.errors.map((e) => [e.element, e.code]).sort(), [
      ['cmi.bogus', 401],
      ['cmi.objectives.5.id', 351],
      ['cmi.score.scaled', 407],
    ])
    assert.equal(r.state.values['cmi.learner_id'], 'learner-1')
    assert.equal(r.seq, 1)
  })

  test('does not depend on the order of the values', () => {
    const values = {
      'cmi.interactions.1.correct_responses.0.pattern': '1[:]2',
      'cmi.interactions.1.type': 'numeric',
      'cmi.interactions.1.id': 'q2',
      'cmi.interactions.0.objectives.0.id': 'o1',
      'cmi.interactions.0.id': 'q1',
      'cmi.interactions.10.id': 'not yet',
    }
    const r = validateDelta('2004', { seq: 1, fromSeq: 0, values }, { initial })
    assert.equal(Object.keys(r.accepted).length, 5)
    assert.deepEqual(
      r.errors.map((e) => [e.element, e.code]),
      [['cmi.interactions.10.id', 351]],
    )
  })

  test('a type change and new patterns in one delta apply on top of the stored interaction', () => {
    const state = validateDelta(
      '2004',
      {
        seq: 1,
        fromSeq: 0,
        values: {
          'cmi.interactions.0.id': 'q',
          'cmi.interactions.0.type': 'other',
          'cmi.interactions.0.correct_responses.0.pattern': 'free text',
        },
      },
      { initial },
    ).state
    // The player first changed the pattern (valid for "other" and "choice"), then the type.
    const r = validateDelta(
      '2004',
      {
        seq: 2,
        fromSeq: 1,
        values: {
          'cmi.interactions.0.type': 'choice',
          'cmi.interactions.0.correct_responses.0.pattern': 'a',
        },
      },
      { initial, state },
    )
    assert.deepEqual(r.errors, [])
    assert.equal(r.state.values['cmi.interactions.0.type'], 'choice')
  })

  test('SCORM 1.2 deltas use the 1.2 codes', () => {
    const r = validateDelta(
      '1.2',
      {
        seq: 3,
        fromSeq: 2,
        values: { 'cmi.core.lesson_status': 'not attempted', 'cmi.core.credit': 'x' },
      },
      { initial: LEARNER },
    )
    assert.deepEqual(
      r.errors.map((e) => e.code),
      [405],
    )
    assert.deepEqual(r.ignored, ['cmi.core.credit'])
  })

  test('malformed input is reported, never thrown', () => {
    for (const bad of [
      null,
      42,
      'x',
      [],
      { seq: -1 },
      { seq: 1, values: [] },
      { seq: 1, values: { 'cmi.location': 5 } },
    ]) {
      const r = validateDelta('2004', bad, { initial })
      assert.ok(r.errors.length > 0, JSON.stringify(bad))
      assert.deepEqual(r.accepted, {})
    }
  })

  test('deltaPosition tells apply, duplicate and gap apart', () => {
    assert.equal(deltaPosition(3, { seq: 4, fromSeq: 3 }), 'apply')
    assert.equal(deltaPosition(3, { seq: 6, fromSeq: 1 }), 'apply')
    assert.equal(deltaPosition(3, { seq: 3, fromSeq: 2 }), 'duplicate')
    assert.equal(deltaPosition(3, { seq: 6, fromSeq: 5 }), 'gap')
  })
})
