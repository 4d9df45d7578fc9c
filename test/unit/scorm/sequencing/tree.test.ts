import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createTrackingState } from '../../../../src/modules/scorm/sequencing/index.ts'
import { cluster, FLOW, Learner, leaf, treeOf } from './helpers.ts'

describe('activity tree', () => {
  test('applies the IMS SS defaults where the manifest is silent', () => {
    const tree = treeOf(leaf('A') + leaf('B'))
    assert.equal(tree.root, 'ORG')
    assert.deepEqual(tree.activities.ORG?.children, ['A', 'B'])
    const a = tree.activities.A
    assert.ok(a)
    assert.deepEqual(a.controlMode, {
      choice: true,
      choiceExit: true,
      flow: false,
      forwardOnly: false,
      useCurrentAttemptObjectiveInfo: true,
      useCurrentAttemptProgressInfo: true,
    })
    assert.deepEqual(a.deliveryControls, {
      tracked: true,
      completionSetByContent: false,
      objectiveSetByContent: false,
    })
    assert.equal(a.rollupObjectiveSatisfied, true)
    assert.equal(a.rollupProgressCompletion, true)
    assert.equal(a.objectiveMeasureWeight, 1)
    assert.deepEqual(a.limitConditions, { attemptLimit: null, attemptAbsoluteDurationLimit: null })
    assert.equal(a.rollupConsiderations.requiredForSatisfied, 'always')
    assert.equal(a.rollupConsiderations.measureSatisfactionIfActive, true)
    assert.deepEqual(a.completionThreshold, {
      completedByMeasure: false,
      minProgressMeasure: 1,
      progressWeight: 1,
    })
    // Every activity has a primary objective, made up when the manifest has none.
    assert.equal(a.objectives.length, 1)
    assert.deepEqual(a.objectives[0], {
      id: '_primary',
      primary: true,
      satisfiedByMeasure: false,
      minNormalizedMeasure: 1,
      maps: [],
    })
    assert.equal(tree.objectivesGlobalToSystem, true)
    assert.equal(a.isVisible, true)
    assert.equal(a.launchHref, 'sco.html')
  })

  test('an item block is laid over the sequencingCollection block it references', () => {
    const collection = `<imsss:sequencing ID="common">
        <imsss:controlMode choice="false" flow="true"/>
        <imsss:limitConditions attemptLimit="3"/>
        <imsss:deliveryControls objectiveSetByContent="true"/>
      </imsss:sequencing>`
    const tree = treeOf(
      leaf(
        'A',
        '<imsss:sequencing IDRef="common"><imsss:limitConditions attemptLimit="1"/></imsss:sequencing>',
      ),
      collection,
    )
    const a = tree.activities.A
    assert.equal(a?.controlMode.choice, false)
    assert.equal(a?.controlMode.flow, true)
    assert.equal(a?.limitConditions.attemptLimit, 1)
    assert.equal(a?.deliveryControls.objectiveSetByContent, true)
  })

  test('reads objectives, maps (with adlseq extensions), rules and ADL extensions', () => {
    const seq = `<imsss:sequencing>
        <imsss:sequencingRules>
          <imsss:preConditionRule><imsss:ruleConditions><imsss:ruleCondition condition="satisfied" operator="not"/></imsss:ruleConditions><imsss:ruleAction action="skip"/></imsss:preConditionRule>
        </imsss:sequencingRules>
        <imsss:limitConditions attemptAbsoluteDurationLimit="PT1H30M"/>
        <imsss:objectives>
          <imsss:primaryObjective objectiveID="p" satisfiedByMeasure="true">
            <imsss:minNormalizedMeasure>0.6</imsss:minNormalizedMeasure>
            <imsss:mapInfo targetObjectiveID="g1" writeSatisfiedStatus="true"/>
          </imsss:primaryObjective>
          <imsss:objective objectiveID="obj%201"/>
        </imsss:objectives>
        <imsss:deliveryControls completionSetByContent="true" objectiveSetByContent="true"/>
        <adlseq:constrainedChoiceConsiderations preventActivation="true"/>
        <adlseq:rollupConsiderations requiredForSatisfied="ifAttempted" measureSatisfactionIfActive="false"/>
        <adlseq:objectives><adlseq:objective objectiveID="p"><adlseq:mapInfo targetObjectiveID="g1" writeCompletionStatus="true"/></adlseq:objective></adlseq:objectives>
      </imsss:sequencing>`
    const nav = `<adlnav:presentation><adlnav:navigationInterface><adlnav:hideLMSUI>continue</adlnav:hideLMSUI></adlnav:navigationInterface></adlnav:presentation>`
    const tree = treeOf(
      `<item identifier="A" identifierref="R" isvisible="false"><title>A</title>${nav}${seq}
        <adlcp:completionThreshold completedByMeasure="true" minProgressMeasure="0.8" progressWeight="0.5"/></item>`,
    )
    const a = tree.activities.A
    assert.ok(a)
    assert.equal(a.isVisible, false)
    assert.deepEqual(a.hideLmsUi, ['continue'])
    assert.equal(a.limitConditions.attemptAbsoluteDurationLimit, 5400)
    assert.deepEqual(a.preConditionRules, [
      {
        conditionCombination: 'all',
        conditions: [
          { condition: 'satisfied', not: true, referencedObjective: null, measureThreshold: 0 },
        ],
        action: 'skip',
      },
    ])
    const [primary, other] = a.objectives
    assert.equal(primary?.id, 'p')
    assert.equal(primary?.minNormalizedMeasure, 0.6)
    assert.equal(primary?.maps[0]?.readSatisfiedStatus, true, 'read maps default to true')
    assert.equal(primary?.maps[0]?.writeSatisfiedStatus, true)
    assert.equal(primary?.maps[0]?.writeCompletionStatus, true)
    assert.equal(other?.id, 'obj 1', 'objective ids are compared decoded')
    assert.equal(a.deliveryControls.completionSetByContent, true)
    assert.equal(a.deliveryControls.objectiveSetByContent, true)
    assert.equal(a.preventActivation, true)
    assert.equal(a.rollupConsiderations.requiredForSatisfied, 'ifAttempted')
    assert.equal(a.rollupConsiderations.measureSatisfactionIfActive, false)
    assert.deepEqual(a.completionThreshold, {
      completedByMeasure: true,
      minProgressMeasure: 0.8,
      progressWeight: 0.5,
    })
  })
})

describe('tracking state', () => {
  test('is compact plain JSON that survives a round trip through storage', () => {
    const tree = treeOf(cluster('M', leaf('A') + leaf('B'), FLOW) + FLOW)
    const learner = new Learner(tree)
    assert.deepEqual(createTrackingState(), {
      v: 1,
      current: null,
      suspended: null,
      activities: {},
    })
    assert.equal(learner.go('start'), 'A')
    const stored = JSON.parse(JSON.stringify(learner.state))
    assert.deepEqual(stored, learner.state)
    // Activities not yet touched carry nothing.
    assert.ok(!learner.state.activities.B || Object.keys(learner.state.activities.B).length === 0)
    learner.state = stored
    assert.equal(learner.go('continue', { completion_status: 'completed' }), 'B')
    assert.ok(JSON.stringify(learner.state).length < 600)
  })

  test('the engine never changes the state object it is given', () => {
    const tree = treeOf(leaf('A') + leaf('B') + FLOW)
    const learner = new Learner(tree)
    learner.go('start')
    const before = structuredClone(learner.state)
    const frozen = learner.state
    learner.go('continue', { completion_status: 'completed', success_status: 'passed' })
    assert.deepEqual(frozen, before)
  })
})
