import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  isNavigationRequestValid,
  processNavigationRequest,
} from '../../../../src/modules/scorm/sequencing/index.ts'
import { cluster, FLOW, Learner, leaf, treeOf } from './helpers.ts'

const seq = (inner: string) => `<imsss:sequencing>${inner}</imsss:sequencing>`
const CHOICE_EXIT_FALSE = seq('<imsss:controlMode choiceExit="false"/>')
const done = { completion_status: 'completed', success_status: 'passed' }

/**
 * Navigation Request Process [NB.2.1] step 7 (choice): every active activity from the Current
 * Activity up to, not including, the common ancestor of it and the target must allow choice
 * exit (exception NB.2.1-8). The player hides such choices; the server must refuse them too,
 * however they are made (a forged request, a SCO's adl.nav.request).
 */
describe('Navigation Request Process [NB.2.1]: choice exit', () => {
  test('a sibling choice leaving an active leaf with choiceExit false is refused, state unchanged', () => {
    const tree = treeOf(leaf('A') + leaf('B', CHOICE_EXIT_FALSE) + leaf('C') + FLOW)
    const l = new Learner(tree)
    assert.equal(l.go('start'), 'A')
    assert.equal(l.go({ type: 'choice', target: 'B' }, done), 'B')
    const before = JSON.stringify(l.state)
    const out = processNavigationRequest(tree, l.state, { type: 'choice', target: 'A' })
    assert.equal(out.valid, false)
    assert.equal(out.exception, 'NB.2.1-8')
    assert.equal(out.deliver, null)
    assert.equal(JSON.stringify(out.state), before)
    assert.equal(isNavigationRequestValid(tree, l.state, { type: 'choice', target: 'C' }), false)
  })

  test('flow is not a choice: Continue leaves a choiceExit=false leaf, and a later choice is free', () => {
    const tree = treeOf(leaf('A') + leaf('B', CHOICE_EXIT_FALSE) + leaf('C') + FLOW)
    const l = new Learner(tree)
    assert.equal(l.go('start'), 'A')
    assert.equal(l.go('continue', done), 'B')
    // Continue is not a choice: choiceExit does not apply to flow.
    assert.equal(l.go('continue', done), 'C')
    assert.equal(l.go({ type: 'choice', target: 'A' }, done), 'A')
  })

  test('choosing the Current Activity itself is not leaving it', () => {
    const tree = treeOf(leaf('A') + leaf('B', CHOICE_EXIT_FALSE) + FLOW)
    const l = new Learner(tree)
    assert.equal(l.go('start'), 'A')
    assert.equal(l.go({ type: 'choice', target: 'B' }, done), 'B')
    assert.notEqual(l.nav({ type: 'choice', target: 'B' }).exception, 'NB.2.1-8')
  })

  test('a cluster with choiceExit false keeps choices inside it, and allows them within', () => {
    const tree = treeOf(
      leaf('X') +
        cluster('M', leaf('A') + leaf('B'), CHOICE_EXIT_FALSE.replace('/>', ' flow="true"/>')) +
        FLOW,
    )
    const l = new Learner(tree)
    assert.equal(l.go('start'), 'X')
    assert.equal(l.go('continue', done), 'A')
    assert.equal(l.go({ type: 'choice', target: 'B' }, done), 'B', 'a sibling inside M')
    assert.equal(l.nav({ type: 'choice', target: 'X' }).exception, 'NB.2.1-8')
  })
})
