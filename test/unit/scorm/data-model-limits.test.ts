import assert from 'node:assert/strict'
import { test } from 'node:test'
import { validateDelta } from '../../../src/modules/scorm/data-model/index.ts'
import { api12, api2004, LEARNER } from './helpers.ts'

const STORYLINE_ID = 'SL360 LMS SCORM 2004'

test('2004 interaction objective ids: refused with 406 by default, accepted in lenient mode', () => {
  const strict = api2004()
  assert.deepEqual(strict.set('cmi.interactions.0.id', 'q1'), ['true', '0'])
  assert.deepEqual(strict.set('cmi.interactions.0.objectives.0.id', STORYLINE_ID), ['false', '406'])
  assert.deepEqual(strict.set('cmi.objectives.0.id', STORYLINE_ID), ['false', '406'])
  const lenient = api2004({}, { options: { lenientIdentifiers: true } })
  assert.deepEqual(lenient.set('cmi.interactions.0.id', 'q 1'), ['true', '0'])
  assert.deepEqual(lenient.set('cmi.interactions.0.objectives.0.id', STORYLINE_ID), ['true', '0'])
  assert.deepEqual(lenient.get('cmi.interactions.0.objectives.0.id'), [STORYLINE_ID, '0'])
  assert.deepEqual(lenient.set('cmi.objectives.0.id', STORYLINE_ID), ['true', '0'])
  assert.deepEqual(lenient.set('cmi.objectives.1.id', ''), ['false', '406'])
  assert.deepEqual(lenient.set('cmi.objectives.1.id', 'x'.repeat(4001)), ['false', '351'])
  // The server's replay applies the same option.
  const delta = {
    seq: 1,
    fromSeq: 0,
    final: false,
    values: { 'cmi.objectives.0.id': STORYLINE_ID },
  }
  const refused = validateDelta('2004', delta, { initial: LEARNER })
  assert.deepEqual(
    refused.errors.map((e) => e.code),
    [406],
  )
  const kept = validateDelta('2004', delta, {
    initial: LEARNER,
    options: { lenientIdentifiers: true },
  })
  assert.deepEqual(kept.errors, [])
})

test('2004 SPMs are enforced: array sizes and element lengths answer 351', () => {
  const { set } = api2004()
  for (let i = 0; i < 250; i++) assert.deepEqual(set(`cmi.interactions.${i}.id`, `q${i}`)[1], '0')
  assert.deepEqual(set('cmi.interactions.250.id', 'q250'), ['false', '351'])
  for (let i = 0; i < 10; i++) set(`cmi.interactions.0.objectives.${i}.id`, `o${i}`)
  assert.deepEqual(set('cmi.interactions.0.objectives.10.id', 'o10'), ['false', '351'])
  for (let i = 0; i < 100; i++) set(`cmi.objectives.${i}.id`, `obj${i}`)
  assert.deepEqual(set('cmi.objectives.100.id', 'obj100'), ['false', '351'])
  assert.deepEqual(set('cmi.location', 'x'.repeat(1000)), ['true', '0'])
  assert.deepEqual(set('cmi.location', 'x'.repeat(1001)), ['false', '351'])
  assert.deepEqual(set('cmi.interactions.0.description', `{lang=en}${'d'.repeat(250)}`), [
    'true',
    '0',
  ])
  assert.deepEqual(set('cmi.interactions.0.description', 'd'.repeat(251)), ['false', '351'])
})

test('a model holds at most maxTotalChars; shrinking values is always allowed', () => {
  const two = api2004({}, { options: { maxTotalChars: 2000 } })
  assert.deepEqual(two.set('cmi.suspend_data', 'x'.repeat(1000)), ['true', '0'])
  assert.deepEqual(two.set('cmi.location', 'y'.repeat(900)), ['false', '351'])
  assert.match(two.api.GetDiagnostic(''), /full/)
  assert.deepEqual(two.set('cmi.suspend_data', 'x'), ['true', '0'])
  assert.deepEqual(two.set('cmi.location', 'y'.repeat(900)), ['true', '0'])
  const one = api12({}, { options: { maxTotalChars: 1000 } })
  assert.deepEqual(one.set('cmi.suspend_data', 'x'.repeat(2000)), ['false', '101'])
  const r = validateDelta(
    '2004',
    { seq: 1, fromSeq: 0, final: false, values: { 'cmi.suspend_data': 'z'.repeat(5000) } },
    { initial: LEARNER, options: { maxTotalChars: 1000 } },
  )
  assert.deepEqual(
    r.errors.map((e) => [e.code, e.kind]),
    [[351, 'data-full']],
  )
})
