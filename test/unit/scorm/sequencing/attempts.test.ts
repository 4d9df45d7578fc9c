import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { cluster, FLOW, Learner, leaf, treeOf } from './helpers.ts'

const seq = (inner: string) => `<imsss:sequencing>${inner}</imsss:sequencing>`
const done = { completion_status: 'completed', success_status: 'passed' }

describe('attempts and limits', () => {
  test('attemptAbsoluteDurationLimit: an attempt that used its time is not delivered again', () => {
    const t = treeOf(
      leaf('A', seq('<imsss:limitConditions attemptAbsoluteDurationLimit="PT10M"/>')) +
        leaf('B') +
        FLOW,
    )
    const l = new Learner(t)
    l.go('start')
    assert.equal(l.go('continue', { completion_status: 'incomplete', attempt_seconds: 601 }), 'B')
    assert.equal(l.nav({ type: 'choice', target: 'A' }).exception, 'DB.1.1-3')
  })

  test('a new attempt on a cluster makes its children’s earlier results stale for rollup', () => {
    const retryAllUnlessSatisfied = seq(
      '<imsss:sequencingRules><imsss:postConditionRule><imsss:ruleConditions><imsss:ruleCondition condition="satisfied" operator="not"/></imsss:ruleConditions><imsss:ruleAction action="retryAll"/></imsss:postConditionRule></imsss:sequencingRules>',
    )
    const t = treeOf(cluster('M', leaf('A') + leaf('B', retryAllUnlessSatisfied), FLOW) + FLOW)
    const l = new Learner(t)
    l.go('start')
    l.go('continue', done)
    // B fails: its post-condition retries the whole course.
    assert.equal(l.go('continue', { ...done, success_status: 'failed' }), 'A')
    assert.equal(l.state.activities.ORG?.count, 2)
    assert.equal(l.state.activities.M?.count, 2)
    // A passes again; B's failure belongs to the previous attempt and no longer counts.
    l.go('continue', done)
    assert.equal(l.state.activities.M?.objectives?._primary?.satisfied, undefined)
  })

  test('onEachNewAttempt reorders the children at every new attempt of the cluster', () => {
    const t = treeOf(
      cluster(
        'M',
        leaf('A') + leaf('B') + leaf('C'),
        seq(
          '<imsss:controlMode flow="true"/><imsss:randomizationControls reorderChildren="true" randomizationTiming="onEachNewAttempt"/>',
        ),
      ) + FLOW,
    )
    const l = new Learner(t)
    const draws = [0, 0, 0.99, 0.99]
    l.random = () => draws.shift() ?? 0.5
    l.go('start')
    const first = l.state.activities.M?.order
    l.go('exitAll', done)
    l.go('start')
    const second = l.state.activities.M?.order
    assert.equal(first?.length, 3)
    assert.notDeepEqual(first, second)
  })

  test('a shared objective written now shows in a cluster never attempted', () => {
    const reads = (id: string) =>
      leaf(
        id,
        seq(
          `<imsss:objectives><imsss:primaryObjective objectiveID="p"><imsss:mapInfo targetObjectiveID="g.${id}"/></imsss:primaryObjective></imsss:objectives>`,
        ),
      )
    const writes = (id: string) =>
      `<imsss:objectives><imsss:primaryObjective objectiveID="p"><imsss:mapInfo targetObjectiveID="g.${id}" writeSatisfiedStatus="true"/></imsss:primaryObjective></imsss:objectives>`
    const t = treeOf(
      leaf('A', seq(`${writes('X')}<imsss:deliveryControls objectiveSetByContent="true"/>`)) +
        cluster(
          'M',
          reads('X'),
          seq(
            '<imsss:controlMode flow="true"/><imsss:sequencingRules><imsss:preConditionRule><imsss:ruleConditions><imsss:ruleCondition condition="satisfied"/></imsss:ruleConditions><imsss:ruleAction action="skip"/></imsss:preConditionRule></imsss:sequencingRules>',
          ),
        ) +
        leaf('C') +
        FLOW,
    )
    const l = new Learner(t)
    l.go('start')
    assert.equal(l.go('continue', { success_status: 'passed' }), 'C')
    assert.equal(l.state.activities.M?.objectives?._primary?.satisfied, true)
  })

  test('attemptEnded tells an ended course attempt from a suspended one', () => {
    const t = treeOf(leaf('A') + leaf('B') + FLOW)
    const l = new Learner(t)
    l.go('start')
    const suspended = l.nav('suspendAll')
    assert.equal(suspended.sessionEnded, true)
    assert.equal(suspended.attemptEnded, false)
    l.go('resumeAll')
    const exited = l.nav('exitAll', done)
    assert.equal(exited.attemptEnded, true)
  })
})
