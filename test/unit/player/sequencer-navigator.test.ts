import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { SequencingUi } from '../../../src/browser/player/protocol.types.ts'
import {
  contentsOf,
  createSequencerNavigator,
  moveAfterTerminate,
} from '../../../src/browser/player/sequencer.navigator.ts'

const on = { enabled: true, hidden: false }
const off = { enabled: false, hidden: false }
const entry = (
  id: string,
  depth: number,
  more: Partial<SequencingUi['toc'][number]> = {},
): SequencingUi['toc'][number] => ({
  id,
  title: id.toUpperCase(),
  depth,
  visible: true,
  selectable: true,
  current: false,
  attempted: false,
  completed: null,
  satisfied: null,
  ...more,
})

// root › module (hidden wrapper) › a, b ; c (not selectable) ; d (hidden from choice)
const UI: SequencingUi = {
  continue: on,
  previous: { enabled: true, hidden: true },
  exit: on,
  exitAll: on,
  suspendAll: off,
  abandon: on,
  abandonAll: on,
  tocEnabled: true,
  toc: [
    entry('root', 0),
    entry('module', 1, { visible: false }),
    entry('a', 2, { current: true, attempted: true }),
    entry('b', 2, { attempted: true, completed: true }),
    entry('c', 1, { selectable: false, attempted: true, satisfied: false }),
    entry('d', 1, { visible: false, selectable: false }),
  ],
  validity: { continue: true, previous: false, choice: { a: true, b: true }, jump: { c: true } },
}

describe('sequencer navigator (SCORM 2004 under the server sequencer)', () => {
  test('the contents leave out invisible entries, lifting what was under them', () => {
    assert.deepEqual(
      contentsOf(UI).map((e) => [e.id, e.level, e.cluster, e.selectable, e.current, e.mark]),
      [
        ['root', 0, true, true, false, 'none'],
        ['a', 0, false, true, true, 'visited'],
        ['b', 0, false, true, false, 'completed'],
        ['c', 0, false, false, false, 'failed'],
      ],
    )
  })

  test('a visible cluster is marked as one, its children one level deeper', () => {
    const ui = { ...UI, toc: [entry('root', 0), entry('m', 1), entry('x', 2), entry('y', 1)] }
    assert.deepEqual(
      contentsOf(ui).map((e) => [e.id, e.level, e.cluster]),
      [
        ['root', 0, true],
        ['m', 0, true],
        ['x', 1, false],
        ['y', 0, false],
      ],
    )
  })

  test('adl.nav.request_valid answers come from the delivery, else from the ui validity', () => {
    const nav = createSequencerNavigator(UI)
    assert.equal(nav.requestValid('continue'), 'true')
    assert.equal(nav.requestValid('previous'), 'false')
    assert.equal(nav.requestValid('choice', 'b'), 'true')
    assert.equal(nav.requestValid('choice', 'nope'), 'false')
    assert.equal(nav.requestValid('jump', ' c '), 'true', 'the target is trimmed')
    nav.update(UI, { continue: false, previous: true, choice: { b: false }, jump: {} })
    assert.equal(nav.requestValid('continue'), 'false')
    assert.equal(nav.requestValid('previous'), 'true')
    assert.equal(nav.requestValid('choice', 'b'), 'false')
  })

  test('controls: hidden wins over enabled, and a move under way disables them all', () => {
    const nav = createSequencerNavigator(UI)
    const idle = nav.controls(true)
    assert.deepEqual(idle.previous, { enabled: false, hidden: true })
    assert.deepEqual(idle.continue, { enabled: true, hidden: false })
    assert.deepEqual(idle.suspendAll, { enabled: false, hidden: false })
    assert.equal(nav.controls(false).continue.enabled, false)
  })

  test('offers only what the controls show: a choice needs an enabled, selectable entry', () => {
    const nav = createSequencerNavigator(UI)
    assert.equal(nav.offers({ request: 'continue' }), true)
    assert.equal(nav.offers({ request: 'previous' }), false, 'hidden')
    assert.equal(nav.offers({ request: 'choice', target: 'b' }), true)
    assert.equal(nav.offers({ request: 'choice', target: 'c' }), false)
    nav.update({ ...UI, tocEnabled: false })
    assert.equal(nav.offers({ request: 'choice', target: 'b' }), false, 'no contents, no choice')
    assert.equal(nav.currentId(), 'a')
  })

  test('what a terminated SCO leaves becomes the request sent to the server', () => {
    assert.deepEqual(moveAfterTerminate({ kind: 'continue' }), { request: 'continue' })
    assert.deepEqual(moveAfterTerminate({ kind: 'choice', target: 'x' }), {
      request: 'choice',
      target: 'x',
    })
    assert.deepEqual(moveAfterTerminate({ kind: 'jump', target: 'y' }), {
      request: 'jump',
      target: 'y',
    })
    assert.deepEqual(moveAfterTerminate({ kind: 'end', reason: 'suspendAll' }), {
      request: 'suspendAll',
    })
    assert.equal(moveAfterTerminate({ kind: 'stay' }), undefined)
  })
})
