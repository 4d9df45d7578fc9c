/**
 * Corner cases of single processes that the CTS replay and the property test found: each test
 * is named after the SN book process it pins down.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { FLOW, Learner, leaf, treeOf } from './helpers.ts'

const passedWrites = (target: string) =>
  `<imsss:sequencing><imsss:objectives><imsss:primaryObjective objectiveID="p">
   <imsss:mapInfo targetObjectiveID="${target}" writeSatisfiedStatus="true"/>
   </imsss:primaryObjective></imsss:objectives></imsss:sequencing>`

const alwaysRetryAll = `<imsss:sequencing><imsss:sequencingRules><imsss:postConditionRule>
  <imsss:ruleConditions><imsss:ruleCondition condition="always"/></imsss:ruleConditions>
  <imsss:ruleAction action="retryAll"/></imsss:postConditionRule></imsss:sequencingRules>
  </imsss:sequencing>`

describe('Select Children Process [SR.1]', () => {
  test('picks selectCount children with any random source, a constant one included', () => {
    const tree = treeOf(
      leaf('A') +
        leaf('B') +
        leaf('C') +
        leaf('D') +
        '<imsss:sequencing><imsss:controlMode flow="true"/><imsss:randomizationControls selectCount="3" selectionTiming="once"/></imsss:sequencing>',
    )
    const l = new Learner(tree)
    l.random = () => 0.5 // the same draw every time: request validity and replays use one
    assert.ok(l.go('start'))
    assert.equal(l.state.activities[tree.root]?.order?.length, 3)
  })
})

describe('Retry Sequencing Request Process [SB.2.10] of the root', () => {
  const course = () => treeOf(leaf('A', passedWrites('g')) + leaf('B', alwaysRetryAll) + FLOW)

  test('objectivesGlobalToSystem false: the new attempt on the tree starts without them', () => {
    const tree = { ...course(), objectivesGlobalToSystem: false }
    const l = new Learner(tree)
    l.go('start')
    l.go('continue', { success_status: 'passed' })
    assert.equal(l.globals.g?.satisfied, true)
    assert.equal(l.go('continue'), 'A', 'retryAll restarts the course')
    assert.deepEqual(l.globals, {})
  })

  test('objectivesGlobalToSystem true: the learner keeps them', () => {
    const l = new Learner(course())
    l.go('start')
    l.go('continue', { success_status: 'passed' })
    assert.equal(l.go('continue'), 'A')
    assert.equal(l.globals.g?.satisfied, true)
  })
})
