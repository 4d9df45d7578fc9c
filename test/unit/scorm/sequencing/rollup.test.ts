import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  createTrackingState,
  reportScoResults,
  rollupSession,
} from '../../../../src/modules/scorm/sequencing/index.ts'
import { cluster, FLOW, Learner, leaf, treeOf } from './helpers.ts'

const rollupRule = (set: string, condition: string, action: string, extra = '') =>
  `<imsss:rollupRule childActivitySet="${set}" ${extra}><imsss:rollupConditions>
    <imsss:rollupCondition condition="${condition}"/></imsss:rollupConditions>
    <imsss:rollupAction action="${action}"/></imsss:rollupRule>`

describe('rollupSession (the one SCORM 2004 session status)', () => {
  const tree = treeOf(leaf('A') + leaf('B') + FLOW)

  test('default rules: passed and completed only when every SCO is', () => {
    const one = rollupSession(tree, createTrackingState(), {
      A: { completion_status: 'completed', success_status: 'passed', score_scaled: 0.8 },
    })
    assert.equal(one.completion_status, 'unknown')
    assert.equal(one.success_status, 'unknown')
    // RB.1.1a divides by the weights of all tracked children, measured or not.
    assert.equal(one.score_scaled, 0.4)
    const both = rollupSession(tree, createTrackingState(), {
      A: { completion_status: 'completed', success_status: 'passed', score_scaled: 0.8 },
      B: { completion_status: 'completed', success_status: 'passed', score_scaled: 0.4 },
    })
    assert.equal(both.completion_status, 'completed')
    assert.equal(both.success_status, 'passed')
    assert.ok(Math.abs((both.score_scaled ?? 0) - 0.6) < 1e-9)
  })

  test('a failed SCO fails the course once every status is known; incomplete likewise', () => {
    const r = rollupSession(tree, createTrackingState(), {
      A: { completion_status: 'completed', success_status: 'passed' },
      B: { completion_status: 'incomplete', success_status: 'failed' },
    })
    assert.equal(r.success_status, 'failed')
    assert.equal(r.completion_status, 'incomplete')
  })

  test('nothing reported: not attempted', () => {
    const r = rollupSession(tree, createTrackingState(), {})
    assert.equal(r.completion_status, 'not attempted')
    assert.equal(r.success_status, 'unknown')
  })

  test('progress measures roll up weighted by progressWeight', () => {
    const weighted = treeOf(
      leaf('A', '<adlcp:completionThreshold progressWeight="0.25"/>') +
        leaf('B', '<adlcp:completionThreshold progressWeight="0.75"/>') +
        FLOW,
    )
    const r = rollupSession(weighted, createTrackingState(), {
      A: { progress_measure: 1 },
      B: { progress_measure: 0.2 },
    })
    assert.ok(Math.abs((r.progress_measure ?? 0) - 0.4) < 1e-9)
  })
})

describe('Overall Rollup Process', () => {
  test('measure rollup weights children by objectiveMeasureWeight; satisfiedByMeasure decides', () => {
    const tree = treeOf(
      leaf(
        'A',
        '<imsss:sequencing><imsss:rollupRules objectiveMeasureWeight="3"/></imsss:sequencing>',
      ) +
        leaf('B') +
        `<imsss:sequencing><imsss:controlMode flow="true"/><imsss:objectives>
          <imsss:primaryObjective objectiveID="course" satisfiedByMeasure="true">
          <imsss:minNormalizedMeasure>0.5</imsss:minNormalizedMeasure></imsss:primaryObjective>
        </imsss:objectives></imsss:sequencing>`,
    )
    const r = rollupSession(tree, createTrackingState(), {
      A: { score_scaled: 0.8 },
      B: { score_scaled: 0 },
    })
    assert.ok(Math.abs((r.score_scaled ?? 0) - 0.6) < 1e-9)
    assert.equal(r.success_status, 'passed')
    const low = rollupSession(tree, createTrackingState(), {
      A: { score_scaled: 0.4 },
      B: { score_scaled: 0.4 },
    })
    assert.equal(low.success_status, 'failed')
  })

  test('rollup rules: atLeastCount, atLeastPercent and none', () => {
    const rules = (r: string) =>
      treeOf(
        leaf('A') +
          leaf('B') +
          leaf('C') +
          `<imsss:sequencing><imsss:controlMode flow="true"/><imsss:rollupRules>${r}</imsss:rollupRules></imsss:sequencing>`,
      )
    const two = { A: { success_status: 'passed' }, B: { success_status: 'passed' } }
    const count = rules(rollupRule('atLeastCount', 'satisfied', 'satisfied', 'minimumCount="2"'))
    assert.equal(rollupSession(count, createTrackingState(), two).success_status, 'passed')
    const percent = rules(
      rollupRule('atLeastPercent', 'satisfied', 'satisfied', 'minimumPercent="0.9"'),
    )
    assert.equal(rollupSession(percent, createTrackingState(), two).success_status, 'unknown')
    const none = rules(rollupRule('none', 'satisfied', 'notSatisfied'))
    const failedAll = {
      A: { success_status: 'failed' },
      B: { success_status: 'failed' },
      C: { success_status: 'failed' },
    }
    assert.equal(rollupSession(none, createTrackingState(), failedAll).success_status, 'failed')
  })

  test('a child with rollupObjectiveSatisfied false does not count', () => {
    const tree = treeOf(
      leaf('A') +
        leaf(
          'B',
          '<imsss:sequencing><imsss:rollupRules rollupObjectiveSatisfied="false"/></imsss:sequencing>',
        ) +
        FLOW,
    )
    const r = rollupSession(tree, createTrackingState(), {
      A: { success_status: 'passed' },
      B: { success_status: 'failed' },
    })
    assert.equal(r.success_status, 'passed')
  })

  test('requiredForSatisfied ifAttempted leaves unattempted children out', () => {
    const tree = treeOf(
      leaf('A') +
        leaf(
          'B',
          '<imsss:sequencing><adlseq:rollupConsiderations requiredForSatisfied="ifAttempted"/></imsss:sequencing>',
        ) +
        FLOW,
    )
    const learner = new Learner(tree)
    learner.go('start')
    learner.go('exitAll', { success_status: 'passed', completion_status: 'completed' })
    assert.equal(learner.state.activities.ORG?.objectives?._primary?.satisfied, true)
  })

  test('measureSatisfactionIfActive false: no satisfaction by measure while the attempt runs', () => {
    const tree = treeOf(
      cluster(
        'M',
        leaf('A') + leaf('B'),
        `<imsss:sequencing><imsss:controlMode flow="true"/>
          <imsss:objectives><imsss:primaryObjective satisfiedByMeasure="true"><imsss:minNormalizedMeasure>0.4</imsss:minNormalizedMeasure></imsss:primaryObjective></imsss:objectives>
          <adlseq:rollupConsiderations measureSatisfactionIfActive="false"/></imsss:sequencing>`,
      ) + FLOW,
    )
    const learner = new Learner(tree)
    learner.go('start')
    learner.go('continue', { score_scaled: 0.9 })
    assert.equal(learner.state.activities.M?.objectives?._primary?.measure, 0.45)
    assert.equal(learner.state.activities.M?.objectives?._primary?.satisfied, undefined)
    learner.go('exitAll', { score_scaled: 0.9 })
    assert.equal(learner.state.activities.M?.objectives?._primary?.satisfied, true)
  })

  test('an attempt that reported nothing counts as completed and satisfied at its end', () => {
    const tree = treeOf(leaf('A') + FLOW)
    const learner = new Learner(tree)
    learner.go('start')
    learner.go('exitAll', {})
    assert.equal(learner.state.activities.A?.completed, true)
    assert.equal(learner.state.activities.ORG?.completed, true)
  })
})

describe('reportScoResults (commits during an attempt)', () => {
  test('records the values and rolls up without navigating or ending the attempt', () => {
    const tree = treeOf(leaf('A') + FLOW)
    const learner = new Learner(tree)
    learner.go('start')
    const out = reportScoResults(tree, learner.state, 'A', {
      completion_status: 'completed',
      success_status: 'passed',
    })
    assert.equal(out.state.current, 'A')
    assert.equal(out.state.activities.A?.active, true)
    assert.equal(out.state.activities.ORG?.completed, true)
    assert.equal(out.state.activities.ORG?.objectives?._primary?.satisfied, true)
  })
})
