import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  navigationRequestValidity,
  parseNavigationRequest,
  requestAfterTerminate,
} from '../../../../src/modules/scorm/sequencing/index.ts'
import { cluster, FLOW, Learner, leaf, treeOf } from './helpers.ts'

const pre = (condition: string, action: string, extra = '') =>
  `<imsss:sequencingRules><imsss:preConditionRule><imsss:ruleConditions>
    <imsss:ruleCondition condition="${condition}" ${extra}/></imsss:ruleConditions>
    <imsss:ruleAction action="${action}"/></imsss:preConditionRule></imsss:sequencingRules>`
const post = (condition: string, action: string) =>
  `<imsss:sequencingRules><imsss:postConditionRule><imsss:ruleConditions>
    <imsss:ruleCondition condition="${condition}"/></imsss:ruleConditions>
    <imsss:ruleAction action="${action}"/></imsss:postConditionRule></imsss:sequencingRules>`
const seq = (inner: string) => `<imsss:sequencing>${inner}</imsss:sequencing>`
const done = { completion_status: 'completed', success_status: 'passed' }

describe('flow navigation', () => {
  const tree = treeOf(cluster('M', leaf('A') + leaf('B'), FLOW) + leaf('C') + FLOW)

  test('start, continue into and out of clusters, previous, and the end of the course', () => {
    const l = new Learner(tree)
    assert.equal(l.go('start'), 'A')
    assert.equal(l.go('continue', done), 'B')
    assert.equal(l.go('previous', done), 'A')
    assert.equal(l.go('continue', done), 'B')
    assert.equal(l.go('continue', done), 'C')
    const end = l.nav('continue', done)
    assert.equal(end.deliver, null)
    assert.equal(end.sessionEnded, true)
    assert.equal(l.state.current, null)
    assert.equal(l.state.activities.ORG?.completed, true)
  })

  test('requests that do not apply are refused with the book exception, changing nothing', () => {
    const l = new Learner(tree)
    const fresh = l.state
    const refused = l.nav('continue')
    assert.equal(refused.valid, false)
    assert.equal(refused.exception, 'NB.2.1-2')
    assert.equal(refused.state, fresh)
    l.go('start')
    assert.equal(l.nav('start').exception, 'NB.2.1-1')
    // Previous from the first activity is a valid request whose sequencing finds nothing: the
    // attempt has ended (termination ran), nothing is delivered.
    const out = l.nav('previous')
    assert.equal(out.valid, true)
    assert.equal(out.exception, 'SB.2.1-3')
    assert.equal(out.deliver, null)
  })

  test('flow disabled: continue is not valid; forwardOnly: previous is not', () => {
    const noFlow = new Learner(treeOf(leaf('A') + leaf('B')))
    assert.equal(noFlow.go('start'), null)
    assert.equal(noFlow.go({ type: 'choice', target: 'A' }), 'A')
    assert.equal(noFlow.nav('continue').exception, 'NB.2.1-4')
    const fwd = new Learner(
      treeOf(leaf('A') + leaf('B') + seq('<imsss:controlMode flow="true" forwardOnly="true"/>')),
    )
    fwd.go('start')
    fwd.go('continue', done)
    assert.equal(fwd.nav('previous').exception, 'NB.2.1-5')
  })

  test('skip and disabled pre-condition rules; stopForwardTraversal is for choice only', () => {
    const t = treeOf(
      leaf('A') +
        leaf('B', seq(pre('always', 'skip'))) +
        leaf('C', seq(pre('always', 'disabled'))) +
        leaf('D') +
        FLOW,
    )
    const l = new Learner(t)
    assert.equal(l.go('start'), 'A')
    const out = l.nav('continue', done)
    assert.equal(out.deliver, null, 'a disabled activity stops the flow')
    assert.equal(out.exception, 'SB.2.2-2')
  })

  test('post-condition retry and exitParent; exit rules', () => {
    const t = treeOf(
      cluster('M', leaf('A', seq(post('satisfied', 'exitParent'))) + leaf('B'), FLOW) +
        leaf('C', seq(post('satisfied', 'retry'))) +
        FLOW,
    )
    const l = new Learner(t)
    assert.equal(l.go('start'), 'A')
    // exitParent ends M's attempt; the pending continue flows on from M, past B.
    assert.equal(l.go('continue', done), 'C')
    assert.equal(l.go('continue', { success_status: 'passed' }), 'C')
    assert.equal(l.state.activities.C?.count, 2)
    assert.equal(l.go('continue', { success_status: 'failed' }), null)
    assert.equal(l.last?.sessionEnded, true)
  })

  test('attemptLimit: an activity out of attempts is not delivered again', () => {
    const t = treeOf(leaf('A', seq('<imsss:limitConditions attemptLimit="1"/>')) + leaf('B') + FLOW)
    const l = new Learner(t)
    l.go('start')
    l.go('continue', done)
    assert.equal(l.nav('previous').exception, 'SB.2.2-2')
    assert.equal(l.nav({ type: 'choice', target: 'A' }).exception, 'DB.1.1-3')
  })
})

describe('choice and jump', () => {
  test('choice between siblings, into clusters, and hiddenFromChoice', () => {
    const t = treeOf(
      leaf('A') +
        cluster('M', leaf('B') + leaf('C', seq(pre('always', 'hiddenFromChoice'))), FLOW) +
        FLOW,
    )
    const l = new Learner(t)
    assert.equal(l.go({ type: 'choice', target: 'M' }), 'B', 'a chosen cluster flows to a leaf')
    assert.equal(l.go({ type: 'choice', target: 'A' }, done), 'A')
    assert.equal(l.nav({ type: 'choice', target: 'C' }).exception, 'SB.2.9-3')
    assert.equal(l.nav({ type: 'choice', target: 'nope' }).exception, 'NB.2.1-11')
  })

  test('choice=false on the parent refuses; choiceExit=false keeps the learner inside', () => {
    const t = treeOf(
      cluster('M', leaf('A') + leaf('B'), seq('<imsss:controlMode choice="false" flow="true"/>')) +
        leaf('X') +
        cluster('N', leaf('C'), seq('<imsss:controlMode flow="true" choiceExit="false"/>')) +
        FLOW,
    )
    const l = new Learner(t)
    assert.equal(l.go('start'), 'A')
    assert.equal(l.nav({ type: 'choice', target: 'B' }).exception, 'NB.2.1-10')
    assert.equal(l.go({ type: 'choice', target: 'C' }, done), 'C')
    assert.equal(l.nav({ type: 'choice', target: 'X' }).exception, 'NB.2.1-8')
    assert.equal(l.go('continue', done), null, 'N is the last cluster: the course ends')
  })

  test('constrainChoice allows only the next activity; preventActivation guards descendants', () => {
    const t = treeOf(
      cluster(
        'M',
        leaf('A'),
        seq(
          '<imsss:controlMode flow="true"/><adlseq:constrainedChoiceConsiderations constrainChoice="true"/>',
        ),
      ) +
        cluster('N', leaf('B')) +
        cluster(
          'P',
          leaf('C'),
          seq(
            '<imsss:controlMode flow="true"/><adlseq:constrainedChoiceConsiderations preventActivation="true"/>',
          ),
        ) +
        FLOW,
    )
    const l = new Learner(t)
    assert.equal(l.go('start'), 'A')
    assert.equal(l.nav({ type: 'choice', target: 'C' }).exception, 'SB.2.9-8')
    assert.equal(l.go({ type: 'choice', target: 'B' }, done), 'B')
    assert.equal(l.nav({ type: 'choice', target: 'C' }).exception, 'SB.2.9-6')
    assert.equal(l.go({ type: 'choice', target: 'P' }, done), 'C')
  })

  test('jump delivers its target whatever the flow', () => {
    const t = treeOf(
      leaf('A') + leaf('B') + leaf('C') + seq('<imsss:controlMode choice="false" flow="true"/>'),
    )
    const l = new Learner(t)
    l.go('start')
    assert.equal(l.go({ type: 'jump', target: 'C' }, done), 'C')
  })
})

describe('ending, suspending, abandoning', () => {
  const tree = treeOf(leaf('A') + leaf('B') + FLOW)

  test('suspendAll then resumeAll resumes the suspended activity', () => {
    const l = new Learner(tree)
    l.go('start')
    l.go('continue', done)
    const out = l.nav('suspendAll', { exit: 'suspend' })
    assert.equal(out.sessionEnded, true)
    assert.equal(l.state.suspended, 'B')
    assert.equal(l.nav('start').valid, true, 'a new session may start over…')
    const again = new Learner(tree)
    again.state = out.state
    const resumed = again.nav('resumeAll')
    assert.equal(resumed.deliver, 'B')
    assert.equal(resumed.resumed, true)
    assert.equal(again.state.activities.B?.count, 1, 'resuming is not a new attempt')
  })

  test('exitAll ends the session and the course attempt; the next start is a new attempt', () => {
    const l = new Learner(tree)
    l.go('start')
    assert.equal(l.nav('exitAll', done).sessionEnded, true)
    assert.equal(l.go('start'), 'A')
    assert.equal(l.state.activities.ORG?.count, 2)
  })

  test('abandon drops the attempt without recording it; abandonAll ends the session', () => {
    const l = new Learner(tree)
    l.go('start')
    const out = l.nav('abandonAll', done)
    assert.equal(out.sessionEnded, true)
    assert.equal(l.state.activities.A?.completed, undefined)
  })

  test('cmi.exit time-out or logout ends the course whatever the SCO asked', () => {
    assert.deepEqual(requestAfterTerminate('time-out', { type: 'continue' }), { type: 'exitAll' })
    assert.deepEqual(requestAfterTerminate('logout', null), { type: 'exitAll' })
    assert.deepEqual(requestAfterTerminate('normal', { type: 'continue' }), { type: 'continue' })
    assert.equal(requestAfterTerminate('', null), null)
  })
})

describe('selection and randomization', () => {
  const tree = treeOf(
    cluster(
      'M',
      leaf('A') + leaf('B') + leaf('C') + leaf('D'),
      seq(
        '<imsss:controlMode flow="true"/><imsss:randomizationControls selectCount="2" selectionTiming="once" reorderChildren="true" randomizationTiming="once"/>',
      ),
    ) + FLOW,
  )

  test('selectCount picks that many children once, in an order the random source decides', () => {
    const draws = [0.9, 0.1, 0.99]
    const l = new Learner(tree)
    l.random = () => draws.shift() ?? 0
    const first = l.go('start')
    const order = l.state.activities.M?.order
    assert.equal(order?.length, 2)
    assert.deepEqual([...(order ?? [])].sort(), ['A', 'D'])
    assert.equal(first, order?.[0])
    l.go('exitAll', done)
    l.go('start')
    assert.deepEqual(l.state.activities.M?.order, order, 'once means once')
  })
})

describe('adl.nav.request_valid', () => {
  test('answers continue, previous, choice and jump from the current state', () => {
    const t = treeOf(
      leaf('A') + leaf('B', seq(pre('always', 'hiddenFromChoice'))) + leaf('C') + FLOW,
    )
    const l = new Learner(t)
    l.go('start')
    const v = navigationRequestValidity(t, l.state)
    assert.equal(v.continue, true)
    assert.equal(v.previous, false)
    assert.deepEqual(v.choice, { ORG: true, A: true, B: false, C: true })
    assert.equal(v.jump.C, true)
  })

  test('parses adl.nav.request values', () => {
    assert.deepEqual(parseNavigationRequest('{target=act_3}choice'), {
      type: 'choice',
      target: 'act_3',
    })
    assert.deepEqual(parseNavigationRequest('{target=X}jump'), { type: 'jump', target: 'X' })
    assert.deepEqual(parseNavigationRequest('suspendAll'), { type: 'suspendAll' })
    assert.equal(parseNavigationRequest('_none_'), null)
  })
})
