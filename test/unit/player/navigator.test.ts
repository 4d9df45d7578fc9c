import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  createFlowNavigator,
  flowMoveAfterTerminate,
  type NavItem,
} from '../../../src/browser/player/navigator.ts'

const heading = (id: string, level = 0): NavItem => ({ id, title: id, level, launchable: false })
const sco = (id: string, level = 1): NavItem => ({ id, title: id, level, launchable: true })

// Module 1 (heading) › a, b; Module 2 (heading) › Part (heading) › c
const COURSE = [heading('m1'), sco('a'), sco('b'), heading('m2'), heading('part', 1), sco('c', 2)]

describe('flow/choice navigator', () => {
  test('starts on the first launchable item and walks forward over headings', () => {
    const nav = createFlowNavigator(COURSE)
    assert.equal(nav.current?.id, 'a')
    assert.equal(nav.canPrevious(), false)
    assert.equal(nav.next()?.id, 'b')
    assert.equal(nav.next()?.id, 'c')
    assert.equal(nav.current?.id, 'c')
  })

  test('cannot go past the last item or before the first, and stays put when refused', () => {
    const nav = createFlowNavigator(COURSE, { startId: 'c' })
    assert.equal(nav.canNext(), false)
    assert.equal(nav.next(), undefined)
    assert.equal(nav.current?.id, 'c')
    assert.equal(nav.previous()?.id, 'b')
    assert.equal(nav.previous()?.id, 'a')
    assert.equal(nav.previous(), undefined)
    assert.equal(nav.current?.id, 'a')
  })

  test('resumes at the given item; a heading or unknown id starts at the first item', () => {
    assert.equal(createFlowNavigator(COURSE, { startId: 'b' }).current?.id, 'b')
    assert.equal(createFlowNavigator(COURSE, { startId: 'm2' }).current?.id, 'a')
    assert.equal(createFlowNavigator(COURSE, { startId: 'gone' }).current?.id, 'a')
    assert.equal(createFlowNavigator(COURSE, { startId: null }).current?.id, 'a')
  })

  test('choice picks any launchable item but never a heading', () => {
    const nav = createFlowNavigator(COURSE)
    assert.equal(nav.choose('c')?.id, 'c')
    assert.equal(nav.canChoose('m2'), false)
    assert.equal(nav.choose('m2'), undefined)
    assert.equal(nav.choose('nope'), undefined)
    assert.equal(nav.current?.id, 'c')
    assert.equal(nav.choose('a')?.id, 'a')
  })

  test('flow off: no previous/continue, choice still works', () => {
    const nav = createFlowNavigator(COURSE, { flow: false })
    assert.equal(nav.canNext(), false)
    assert.equal(nav.next(), undefined)
    assert.equal(nav.choose('b')?.id, 'b')
    assert.equal(nav.canPrevious(), false)
  })

  test('choice off: the contents cannot be used to jump, a SCO jump still can', () => {
    const nav = createFlowNavigator(COURSE, { choice: false })
    assert.equal(nav.canChoose('c'), false)
    assert.equal(nav.choose('c'), undefined)
    assert.equal(nav.next()?.id, 'b')
    assert.equal(nav.jump('c')?.id, 'c')
    assert.equal(nav.jump('m2'), undefined)
  })

  test('answers adl.nav.request_valid from the same rules', () => {
    const nav = createFlowNavigator(COURSE, { choice: false })
    assert.equal(nav.requestValid('continue'), 'true')
    assert.equal(nav.requestValid('previous'), 'false')
    assert.equal(nav.requestValid('choice', 'b'), 'false')
    assert.equal(nav.requestValid('jump', 'b'), 'true')
    assert.equal(nav.requestValid('jump', 'm1'), 'false')
    nav.jump('c')
    assert.equal(nav.requestValid('continue'), 'false')
    assert.equal(nav.requestValid('previous'), 'true')
    const open = createFlowNavigator(COURSE)
    assert.equal(open.requestValid('choice', 'c'), 'true')
    assert.equal(open.requestValid('choice'), 'false')
  })

  test('a course with only headings has no current item and goes nowhere', () => {
    const nav = createFlowNavigator([heading('h')])
    assert.equal(nav.current, undefined)
    assert.equal(nav.canNext(), false)
    assert.equal(nav.canPrevious(), false)
    assert.equal(nav.next(), undefined)
    assert.equal(nav.previous(), undefined)
  })

  test('a single item course: first and last at once', () => {
    const nav = createFlowNavigator([sco('only', 0)])
    assert.equal(nav.current?.id, 'only')
    assert.equal(nav.canNext(), false)
    assert.equal(nav.canPrevious(), false)
  })

  test('unavailable items (prerequisites not met): Continue and Previous pass over them, choice refuses them', () => {
    const locked = new Set(['b'])
    const nav = createFlowNavigator(COURSE, { available: (i) => !locked.has(i.id) })
    assert.equal(nav.canChoose('b'), false)
    assert.equal(nav.choose('b'), undefined)
    assert.equal(nav.next()?.id, 'c')
    assert.equal(nav.previous()?.id, 'a')
    // Asked afresh on every move: once b is met it is the next one again.
    locked.delete('b')
    assert.equal(nav.next()?.id, 'b')
    locked.add('c')
    assert.equal(nav.canNext(), false)
    assert.equal(nav.requestValid('continue'), 'false')
  })

  test('a locked start item (resume) falls back to the first available one', () => {
    const nav = createFlowNavigator(COURSE, { startId: 'b', available: (i) => i.id !== 'b' })
    assert.equal(nav.current?.id, 'a')
    const none = createFlowNavigator(COURSE, { available: () => false })
    assert.equal(none.current?.id, 'a', 'nothing available: the first item, not nothing')
    assert.equal(none.canNext(), false)
  })
})

describe("a terminated SCO's request on the flow navigator", () => {
  test('continue, previous, choice and jump move when the navigator allows them', () => {
    const nav = createFlowNavigator(COURSE, { startId: 'b' })
    assert.equal(flowMoveAfterTerminate({ kind: 'continue' }, nav)?.()?.id, 'c')
    assert.equal(flowMoveAfterTerminate({ kind: 'previous' }, nav)?.()?.id, 'b')
    assert.equal(flowMoveAfterTerminate({ kind: 'choice', target: 'a' }, nav)?.()?.id, 'a')
    const noChoice = createFlowNavigator(COURSE, { choice: false })
    assert.equal(flowMoveAfterTerminate({ kind: 'choice', target: 'c' }, noChoice), undefined)
    assert.equal(flowMoveAfterTerminate({ kind: 'jump', target: 'c' }, noChoice)?.()?.id, 'c')
  })

  test('a move that cannot be followed, the end or no request leaves it to the learner', () => {
    const nav = createFlowNavigator(COURSE, { startId: 'c' })
    assert.equal(flowMoveAfterTerminate({ kind: 'continue' }, nav), undefined)
    assert.equal(flowMoveAfterTerminate({ kind: 'jump', target: 'gone' }, nav), undefined)
    assert.equal(flowMoveAfterTerminate({ kind: 'end', reason: 'exit' }, nav), undefined)
    assert.equal(flowMoveAfterTerminate({ kind: 'stay' }, nav), undefined)
    assert.equal(nav.current?.id, 'c', 'asking moved nothing')
  })
})
