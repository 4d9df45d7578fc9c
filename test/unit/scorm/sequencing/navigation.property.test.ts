/**
 * Property test: random navigation requests (with random SCO results) against random valid
 * activity trees. Bounded (tree size, request count, runs) to finish in a few seconds.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import {
  type ActivityTree,
  createTrackingState,
  type GlobalObjectiveMap,
  type NavigationOutcome,
  type NavigationRequest,
  processNavigationRequest,
  type RequestValidity,
  type TrackingState,
  uiState,
} from '../../../../src/modules/scorm/sequencing/index.ts'
import { activityTree, navigationStep, toRequest, toResults } from './arbitrary-tree.ts'

/** A small seeded generator, so two runs of one request draw the same numbers. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const roundTrip = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

/** Activities carrying an `always` rule with `action`, with their descendants. */
function withAlwaysRule(tree: ActivityTree, action: string): Set<string> {
  const out = new Set<string>()
  const walk = (id: string, inherited: boolean) => {
    const a = tree.activities[id]
    if (!a) return
    const own = a.preConditionRules.some(
      (r) => r.action === action && r.conditions.every((c) => c.condition === 'always' && !c.not),
    )
    if (inherited || own) out.add(id)
    for (const c of a.children) walk(c, inherited || own)
  }
  walk(tree.root, false)
  return out
}

function checkDelivery(
  tree: ActivityTree,
  request: NavigationRequest,
  out: NavigationOutcome,
): void {
  if (out.deliver === null) return
  const delivered = tree.activities[out.deliver]
  assert.ok(delivered, `delivered an unknown activity ${out.deliver}`)
  assert.equal(delivered.children.length, 0, `delivered a cluster ${out.deliver}`)
  assert.ok(!withAlwaysRule(tree, 'disabled').has(out.deliver), `delivered disabled ${out.deliver}`)
  // An exit or post-condition rule may replace the choice (a retry, say): only a choice that
  // ran as one is bound by the choice rules.
  if (request.type !== 'choice' || out.sequencing !== 'choice') return
  const target = request.target ?? ''
  assert.ok(!withAlwaysRule(tree, 'hiddenFromChoice').has(target), `chose hidden ${target}`)
  const parent = tree.activities[target]?.parent
  if (parent) assert.ok(tree.activities[parent]?.controlMode.choice, `chose ${target}: choice off`)
}

/** navigationRequestValidity shares one termination between its answers: each must still be
 * what the request itself would do. */
function assertValidityMatchesRequests(
  tree: ActivityTree,
  state: TrackingState,
  globals: GlobalObjectiveMap,
  validity: RequestValidity,
): void {
  const run = (request: NavigationRequest) => {
    const out = processNavigationRequest(tree, state, request, { globals, random: () => 0 })
    return out.deliver !== null || (request.type === 'continue' && out.sessionEnded)
  }
  assert.equal(validity.continue, run({ type: 'continue' }), 'continue')
  assert.equal(validity.previous, run({ type: 'previous' }), 'previous')
  for (const id of Object.keys(tree.activities)) {
    assert.equal(validity.choice[id], run({ type: 'choice', target: id }), `choice ${id}`)
    if (id in validity.jump)
      assert.equal(validity.jump[id], run({ type: 'jump', target: id }), `jump ${id}`)
  }
}

test('random requests on random trees: no throw, nothing forbidden, state resumes from JSON', () => {
  fc.assert(
    fc.property(
      activityTree,
      fc.array(navigationStep, { minLength: 1, maxLength: 20 }),
      fc.nat(),
      (tree, steps, seed) => {
        const treeBefore = roundTrip(tree)
        let state: TrackingState = createTrackingState()
        let globals: GlobalObjectiveMap = {}
        for (const [i, step] of steps.entries()) {
          const request = toRequest(tree, state, step)
          const results = toResults(step)
          const opts = (g: GlobalObjectiveMap) => ({
            globals: g,
            random: seeded(seed + i),
            ...(results && i > 0 ? { results } : {}),
          })
          const out = processNavigationRequest(tree, state, request, opts(globals))
          // The same request on the stored (JSON) form of the state behaves the same.
          const again = processNavigationRequest(
            tree,
            roundTrip(state),
            request,
            opts(roundTrip(globals)),
          )
          assert.deepEqual(again, out)
          checkDelivery(tree, request, out)
          assert.deepEqual(roundTrip(out.state), out.state)
          assert.deepEqual(roundTrip(out.globals), out.globals)
          state = out.state
          globals = out.globals
        }
        const ui = uiState(tree, state, { globals })
        assertValidityMatchesRequests(tree, state, globals, ui.validity)
        const hidden = withAlwaysRule(tree, 'hiddenFromChoice')
        for (const e of ui.toc) {
          if (hidden.has(e.id)) assert.ok(!e.visible, `${e.id} hidden from choice but shown`)
          if (e.selectable) assert.ok(ui.validity.choice[e.id], `${e.id} offered, choice invalid`)
        }
        assert.deepEqual(roundTrip(tree), treeBefore, 'the engine changed the tree')
      },
    ),
    { numRuns: 1500 },
  )
})
