import assert from 'node:assert/strict'
import { test } from 'node:test'
import { reportedResults, resultsOfRows } from '../../../src/modules/runtime/attempt-sequencing.ts'
import { createTrackingState } from '../../../src/modules/scorm/sequencing/index.ts'
import { type ScoStatus, sessionStatus } from '../../../src/modules/sessions/session-status.ts'
import { leaf, treeOf } from '../scorm/sequencing/helpers.ts'

const launched: ScoStatus = {
  completion: 'incomplete',
  success: 'unknown',
  scaled: null,
  raw: null,
  min: null,
  max: null,
  progressMeasure: null,
}
const untouched: ScoStatus = { ...launched, completion: 'not attempted' }

test('a commit that changes no status, score, progress or objective has nothing to roll up', () => {
  const values = {
    'cmi.location': 'p3',
    'cmi.suspend_data': 'x',
    'cmi.completion_status': 'unknown',
  }
  assert.equal(
    reportedResults({ 'cmi.location': 'p3', 'cmi.suspend_data': 'x' }, values, false),
    null,
  )
  assert.deepEqual(
    reportedResults({}, values, true),
    { exit: '' },
    'ending a launch always rolls up',
  )
})

test('each score field is reported only when set, so a primary objective entry can fill the rest', () => {
  const values = {
    'cmi.score.scaled': '0.5',
    'cmi.objectives.0.id': 'P',
    'cmi.objectives.0.score.raw': '75',
  }
  assert.deepEqual(reportedResults(values, values, false), {
    score_scaled: 0.5,
    objectives: [{ id: 'P', score_raw: 75 }],
  })
})

test('statuses are reported as the data model evaluates them against the manifest thresholds', () => {
  const values = {
    'cmi.completion_threshold': '0.8',
    'cmi.progress_measure': '0.9',
    'cmi.completion_status': 'incomplete',
    'cmi.scaled_passing_score': '0.7',
    'cmi.score.scaled': '0.6',
    'cmi.success_status': 'passed',
  }
  const changed = { 'cmi.progress_measure': '0.9', 'cmi.score.scaled': '0.6' }
  assert.deepEqual(reportedResults(changed, values, false), {
    completion_status: 'completed',
    success_status: 'failed',
    progress_measure: 0.9,
    score_scaled: 0.6,
  })
})

test('a session of several SCOs is the root rollup: one passed SCO leaves it incomplete', () => {
  const tree = treeOf(leaf('a') + leaf('b'))
  const r = sessionStatus('2004', 2, [launched, untouched], {
    tree,
    state: createTrackingState(),
    results: { a: { completion_status: 'completed', success_status: 'passed', score_scaled: 0.9 } },
    globals: {},
  })
  assert.equal(r.completion, 'incomplete')
  assert.equal(r.success, 'unknown')
  assert.equal(r.progressPercent, 0, 'no SCO row is done yet in this input')
  assert.equal(r.engine?.state.activities.a?.completed, true)
  const both = sessionStatus('2004', 2, [launched, launched], {
    tree,
    state: r.engine?.state ?? createTrackingState(),
    results: { b: { completion_status: 'completed', success_status: 'passed', score_scaled: 0.5 } },
    globals: {},
  })
  assert.deepEqual(
    [both.completion, both.success, both.score.scaled, both.progressPercent],
    ['completed', 'passed', 0.7, 100],
  )
})

test('an attempt without a stored state is rebuilt from what its SCO rows reached', () => {
  const row = {
    session_id: 's',
    tenant_id: 't',
    mode: 'test' as const,
    carry: '{}',
    total_time: null,
    suspended: 0,
    delivery_id: null,
    delivery_seq: 0,
    data_chars: 0,
    updated_at: '',
    score_raw: null,
    score_min: null,
    score_max: null,
    progress_measure: null,
  }
  assert.deepEqual(
    resultsOfRows([
      {
        ...row,
        item_id: 'a',
        launched: 1,
        completion_status: 'completed',
        success_status: 'passed',
        score_scaled: 1,
      },
      {
        ...row,
        item_id: 'b',
        launched: 1,
        completion_status: 'incomplete',
        success_status: 'unknown',
        score_scaled: null,
      },
      {
        ...row,
        item_id: 'c',
        launched: 0,
        completion_status: 'not attempted',
        success_status: 'unknown',
        score_scaled: null,
      },
    ]),
    { a: { completion_status: 'completed', success_status: 'passed', score_scaled: 1 }, b: {} },
  )
})
