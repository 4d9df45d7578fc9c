import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  elementPattern,
  parseRefused,
  runtimeWarnings,
  warningCode,
} from '../../../src/modules/runtime/runtime-warnings.ts'

test('refusals are counted per code and element pattern, with the latest value as example', () => {
  assert.equal(
    elementPattern('cmi.interactions.12.objectives.0.id'),
    'cmi.interactions.N.objectives.N.id',
  )
  assert.equal(elementPattern('cmi.location'), 'cmi.location')
  assert.equal(warningCode('2004', 406), 'type_mismatch')
  assert.equal(warningCode('1.2', 405), 'type_mismatch')
  assert.equal(warningCode('2004', 999), 'error_999')
  const refused = parseRefused([
    {
      element: 'cmi.interactions.0.objectives.0.id',
      value: 'SL360 LMS SCORM 2004',
      error_code: 406,
    },
    { element: 'cmi.interactions.1.objectives.0.id', value: 'other id', error_code: 406 },
    { element: '', value: 'x', error_code: 406 },
    { element: 'cmi.location', value: 'x', error_code: -1 },
    'nonsense',
    null,
  ])
  assert.equal(refused.length, 2)
  const warnings = runtimeWarnings(
    '2004',
    refused,
    [{ element: 'cmi.suspend_data', code: 351, message: 'full', kind: 'data-full' }],
    { 'cmi.suspend_data': 'y'.repeat(500) },
  )
  assert.deepEqual(
    warnings.map((w) => [w.code, w.element, w.example.length, w.count]),
    [
      ['type_mismatch', 'cmi.interactions.N.objectives.N.id', 8, 2],
      ['data_full', 'cmi.suspend_data', 200, 1],
    ],
  )
  assert.deepEqual(parseRefused({ not: 'a list' }), [])
  assert.equal(parseRefused(Array.from({ length: 500 }, () => refused[0])).length, 100)
})
