import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { FLOW, Learner, leaf, treeOf } from './helpers.ts'

const skipIfSatisfied = `<imsss:sequencingRules><imsss:preConditionRule><imsss:ruleConditions>
  <imsss:ruleCondition condition="satisfied"/></imsss:ruleConditions><imsss:ruleAction action="skip"/>
  </imsss:preConditionRule></imsss:sequencingRules>`

function objectives(maps: string, adl = ''): string {
  return `<imsss:objectives><imsss:primaryObjective objectiveID="p">${maps}</imsss:primaryObjective></imsss:objectives>${adl}`
}

describe('global objective maps', () => {
  test('a satisfied status written by one activity is read by another', () => {
    const tree = treeOf(
      leaf(
        'A',
        `<imsss:sequencing>${objectives('<imsss:mapInfo targetObjectiveID="g" writeSatisfiedStatus="true" writeNormalizedMeasure="true"/>')}</imsss:sequencing>`,
      ) +
        leaf(
          'B',
          `<imsss:sequencing>${skipIfSatisfied}${objectives('<imsss:mapInfo targetObjectiveID="g"/>')}</imsss:sequencing>`,
        ) +
        leaf('C') +
        FLOW,
    )
    const learner = new Learner(tree)
    assert.equal(learner.go('start'), 'A')
    assert.equal(learner.go('continue', { success_status: 'passed', score_scaled: 0.9 }), 'C')
    assert.deepEqual(learner.globals, { g: { satisfied: true, measure: 0.9 } })
  })

  test('the caller owns the map: values from earlier courses are read, the input is not changed', () => {
    const tree = treeOf(
      leaf(
        'B',
        `<imsss:sequencing>${skipIfSatisfied}${objectives('<imsss:mapInfo targetObjectiveID="g"/>')}</imsss:sequencing>`,
      ) +
        leaf('C') +
        FLOW,
    )
    const globals = { g: { satisfied: true } }
    const learner = new Learner(tree, globals)
    assert.equal(learner.go('start'), 'C')
    learner.go('exitAll')
    assert.deepEqual(globals, { g: { satisfied: true } })
  })

  test('without read maps an objective keeps its own status', () => {
    const tree = treeOf(
      leaf(
        'B',
        `<imsss:sequencing>${skipIfSatisfied}${objectives('<imsss:mapInfo targetObjectiveID="g" readSatisfiedStatus="false"/>')}</imsss:sequencing>`,
      ) +
        leaf('C') +
        FLOW,
    )
    const learner = new Learner(tree, { g: { satisfied: true } })
    assert.equal(learner.go('start'), 'B')
  })

  test('4th Edition maps carry completion, progress measure and raw/min/max scores', () => {
    const write = objectives(
      '',
      `<adlseq:objectives><adlseq:objective objectiveID="p"><adlseq:mapInfo targetObjectiveID="g"
        writeCompletionStatus="true" writeProgressMeasure="true" writeRawScore="true" writeMinScore="true" writeMaxScore="true"/></adlseq:objective></adlseq:objectives>`,
    )
    const skipIfCompleted = `<imsss:sequencingRules><imsss:preConditionRule><imsss:ruleConditions>
      <imsss:ruleCondition condition="completed"/></imsss:ruleConditions><imsss:ruleAction action="skip"/>
      </imsss:preConditionRule></imsss:sequencingRules>`
    const read = objectives(
      '',
      `<adlseq:objectives><adlseq:objective objectiveID="p"><adlseq:mapInfo targetObjectiveID="g"/></adlseq:objective></adlseq:objectives>`,
    )
    const tree = treeOf(
      leaf('A', `<imsss:sequencing>${write}</imsss:sequencing>`) +
        leaf('B', `<imsss:sequencing>${skipIfCompleted}${read}</imsss:sequencing>`) +
        leaf('C') +
        FLOW,
    )
    const learner = new Learner(tree)
    learner.go('start')
    const results = {
      completion_status: 'completed',
      progress_measure: 1,
      score_raw: 8,
      score_min: 0,
      score_max: 10,
    }
    assert.equal(learner.go('continue', results), 'C')
    assert.deepEqual(learner.globals.g, { completed: true, progress: 1, raw: 8, min: 0, max: 10 })
  })

  test('an unknown status written through a map clears the global value', () => {
    const tree = treeOf(
      leaf(
        'A',
        `<imsss:sequencing>${objectives('<imsss:mapInfo targetObjectiveID="g" writeSatisfiedStatus="true"/>')}<imsss:deliveryControls objectiveSetByContent="true"/></imsss:sequencing>`,
      ) + FLOW,
    )
    const learner = new Learner(tree, { g: { satisfied: false, measure: 0.2 } })
    learner.go('start')
    learner.go('exitAll', { success_status: 'unknown' })
    assert.deepEqual(learner.globals, { g: { measure: 0.2 } })
  })
})
