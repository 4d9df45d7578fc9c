/**
 * The sequencing engine on a generated 1 000-activity course (20 modules of 49 SCOs, each
 * module mapped to a global objective, every 7th SCO with a skip rule reading one): navigation
 * request → delivery latency (p50/p99 per request; target p99 < 5 ms), adl.nav.request_valid
 * (one answer, and every answer the player's controls and table of contents need), resume of
 * the serialized state, next to two baselines measured in the same run: JSON parse+stringify of
 * a runtime commit-sized payload and the data model's validation of that commit.
 *   node bench/sequencing.bench.ts [requests=3000]
 */

import { validateDelta } from '../src/modules/scorm/data-model/index.ts'
import { summarisePackage } from '../src/modules/scorm/manifest/index.ts'
import {
  type ActivityTree,
  buildActivityTree,
  createTrackingState,
  type GlobalObjectiveMap,
  isNavigationRequestValid,
  type NavigationRequest,
  navigationRequestValidity,
  processNavigationRequest,
  type TrackingState,
  uiState,
} from '../src/modules/scorm/sequencing/index.ts'

const requests = Number(process.argv[2] ?? 3000)
const MODULES = 20
const SCOS = 49

function courseManifest(): string {
  const modules = Array.from({ length: MODULES }, (_, m) => {
    const scos = Array.from({ length: SCOS }, (_, s) => {
      const skip =
        s % 7 === 6
          ? `<imsss:sequencing><imsss:sequencingRules><imsss:preConditionRule><imsss:ruleConditions>
             <imsss:ruleCondition condition="satisfied" referencedObjective="g"/></imsss:ruleConditions>
             <imsss:ruleAction action="skip"/></imsss:preConditionRule></imsss:sequencingRules>
             <imsss:objectives><imsss:primaryObjective/><imsss:objective objectiveID="g">
             <imsss:mapInfo targetObjectiveID="mod-${(m + 1) % MODULES}"/></imsss:objective></imsss:objectives>
             </imsss:sequencing>`
          : ''
      return `<item identifier="m${m}s${s}" identifierref="R"><title>SCO ${m}.${s}</title>${skip}</item>`
    }).join('')
    return `<item identifier="m${m}"><title>Module ${m}</title>${scos}
      <imsss:sequencing><imsss:controlMode flow="true" choice="true"/>
      <imsss:objectives><imsss:primaryObjective objectiveID="p${m}">
      <imsss:mapInfo targetObjectiveID="mod-${m}" writeSatisfiedStatus="true"/></imsss:primaryObjective>
      </imsss:objectives></imsss:sequencing></item>`
  }).join('')
  return `<?xml version="1.0"?>
<manifest identifier="bench" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="ORG"><organization identifier="ORG"><title>Bench</title>${modules}
    <imsss:sequencing><imsss:controlMode flow="true" choice="true"/></imsss:sequencing>
  </organization></organizations>
  <resources><resource identifier="R" type="webcontent" adlcp:scormType="sco" href="sco.html">
    <file href="sco.html"/></resource></resources>
</manifest>`
}

export function buildTree(): ActivityTree {
  const summary = summarisePackage({
    layout: { contentType: 'scorm', manifestPath: 'imsmanifest.xml', warnings: [] },
    text: courseManifest(),
    files: null,
    totalBytes: 0,
  })
  if (!summary.scorm) throw new Error('bench manifest did not parse')
  return buildActivityTree(summary.scorm)
}

/** Milliseconds per call of `fn`, one sample per call. */
function sample(n: number, fn: (i: number) => void): number[] {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    fn(i)
    out.push(performance.now() - t)
  }
  return out
}

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number
  const mean = s.reduce((a, b) => a + b, 0) / s.length
  return `p50 ${at(0.5).toFixed(3)} ms  p99 ${at(0.99).toFixed(3)} ms  mean ${mean.toFixed(3)} ms  (n=${s.length})`
}

/** A learner's session: mostly Continue after a passed SCO, some table-of-contents choices,
 * some Previous; a course that ends starts again. Deterministic (a fixed LCG). */
function session(tree: ActivityTree) {
  const leaves = Object.values(tree.activities).filter((a) => a.children.length === 0)
  let seed = 7
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
  let state: TrackingState = createTrackingState()
  let globals: GlobalObjectiveMap = {}
  const next = (): NavigationRequest => {
    if (state.current === null) return { type: 'start' }
    const r = rand()
    if (r < 0.7) return { type: 'continue' }
    if (r < 0.9) return { type: 'choice', target: leaves[Math.floor(rand() * leaves.length)]?.id }
    return { type: 'previous' }
  }
  let delivered = 0
  const step = () => {
    const request = next()
    const results =
      state.current === null
        ? undefined
        : { completion_status: 'completed', success_status: rand() < 0.8 ? 'passed' : 'failed' }
    const out = processNavigationRequest(tree, state, request, {
      globals,
      ...(results ? { results } : {}),
    })
    if (out.deliver) delivered++
    state = out.sessionEnded ? createTrackingState() : out.state
    globals = out.globals
  }
  return { step, get: () => ({ state, globals }), delivered: () => delivered }
}

function commitPayload(): Record<string, string> {
  // A typical commit: statuses, location, suspend data and a few interactions.
  const values: Record<string, string> = {
    'cmi.completion_status': 'incomplete',
    'cmi.success_status': 'unknown',
    'cmi.location': 'page-12',
    'cmi.score.scaled': '0.75',
    'cmi.score.raw': '75',
    'cmi.session_time': 'PT12M30S',
    'cmi.suspend_data': 'x'.repeat(2000),
  }
  for (let i = 0; i < 10; i++) {
    values[`cmi.interactions.${i}.id`] = `q${i}`
    values[`cmi.interactions.${i}.type`] = 'choice'
    values[`cmi.interactions.${i}.learner_response`] = 'a'
    values[`cmi.interactions.${i}.result`] = 'correct'
  }
  return values
}

function main(): void {
  const cpu0 = process.cpuUsage()
  const tree = buildTree()
  const count = Object.keys(tree.activities).length
  const s = session(tree)
  for (let i = 0; i < 200; i++) s.step() // warm up
  const warm = s.delivered()
  const navCpu = process.cpuUsage()
  const nav = sample(requests, () => s.step())
  // CPU time is what the process itself spent: on a shared, loaded machine wall-clock
  // percentiles include time spent waiting for a core.
  const navUsage = process.cpuUsage(navCpu)
  const navCpuMs = (navUsage.user + navUsage.system) / 1000
  const { state, globals } = s.get()
  const leaves = Object.values(tree.activities).filter((a) => a.children.length === 0)
  const oneValid = sample(500, (i) =>
    isNavigationRequestValid(
      tree,
      state,
      i % 2
        ? { type: 'continue' }
        : { type: 'choice', target: leaves[(i * 37) % leaves.length]?.id },
      { globals },
    ),
  )
  const allValid = sample(5, () => navigationRequestValidity(tree, state, { globals }))
  const ui = sample(5, () => uiState(tree, state, { globals }))
  const stored = JSON.stringify({ state, globals })
  const resume = sample(500, () => {
    const back = JSON.parse(stored) as { state: TrackingState; globals: GlobalObjectiveMap }
    const suspended = processNavigationRequest(tree, back.state, { type: 'suspendAll' }, back)
    processNavigationRequest(tree, suspended.state, { type: 'resumeAll' }, suspended)
  })
  const payload = { seq: 1, fromSeq: 0, final: false, values: commitPayload() }
  const json = sample(2000, () => JSON.parse(JSON.stringify(payload)))
  const initial = { learnerId: 'l', learnerName: 'L' }
  const commit = sample(2000, () => validateDelta('2004', payload, { initial }))
  const cpu = process.cpuUsage(cpu0)
  console.log(
    `tree: ${count} activities; ${s.delivered() - warm} deliveries in ${requests} requests`,
  )
  console.log(`navigation request → delivery       ${stats(nav)}`)
  console.log(`  CPU per request (mean)            ${(navCpuMs / requests).toFixed(3)} ms`)
  console.log(`request_valid, one answer           ${stats(oneValid)}`)
  console.log(`request_valid, every answer         ${stats(allValid)}`)
  console.log(`uiState (controls + TOC)            ${stats(ui)}`)
  console.log(
    `resume: parse ${(stored.length / 1024).toFixed(1)} KiB, suspendAll + resumeAll ${stats(resume)}`,
  )
  console.log(`baseline: commit JSON parse+stringify ${stats(json)}`)
  console.log(`baseline: commit validateDelta        ${stats(commit)}`)
  console.log(
    `process CPU: user ${(cpu.user / 1000).toFixed(0)} ms, system ${(cpu.system / 1000).toFixed(0)} ms`,
  )
}

if (import.meta.main) main()
