import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import type { CheckKind } from './cts/check-tally.ts'
import {
  type CaseOutcome,
  CTS_DIR,
  driveCase,
  type LearnerGlobals,
  loadSeqCase,
} from './cts/drive-case.ts'

// Every case is driven, the data-model families (API, DMI, DMB, DDM) too: each delivery must be
// the one the case expects. Their data-model steps are graded by test/unit/scorm/cts; this
// replay grades what needs the sequencer (see cts/grade-step.ts).
const files = readdirSync(join(CTS_DIR, 'cases'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))
  .sort()

/**
 * Cases the engine does not pass yet, id → why. Empty: every case passes every check. A case
 * missing here that fails fails the test; a case listed here that passes is reported, so the
 * list only shrinks. (RU-13d was listed until the engine cleared attempt-scoped global
 * objectives on a retry of the root, as ADL's reference LMS does.)
 */
const KNOWN_FAILURES = new Map<string, string>([])

const family = (id: string) => id.replace(/-.*$/, '')

function report(outcomes: CaseOutcome[]): void {
  const families = new Map<string, { pass: number; all: number }>()
  for (const o of outcomes) {
    const f = families.get(family(o.id)) ?? { pass: 0, all: 0 }
    f.all++
    if (o.passed) f.pass++
    families.set(family(o.id), f)
  }
  const passed = outcomes.filter((o) => o.passed).length
  console.log(`CTS sequencing: ${passed}/${outcomes.length} cases pass every check`)
  console.log(
    `  per family: ${[...families].map(([f, n]) => `${f} ${n.pass}/${n.all}`).join(', ')}`,
  )
  const checks: Partial<Record<CheckKind, number>> = {}
  for (const o of outcomes)
    for (const [k, n] of Object.entries(o.tally.passed))
      checks[k as CheckKind] = (checks[k as CheckKind] ?? 0) + n
  const failedChecks = outcomes.reduce((n, o) => n + o.tally.failures.length, 0)
  console.log(`  checks passed: ${JSON.stringify(checks)}; failed: ${failedChecks}`)
  for (const o of outcomes.filter((x) => !x.passed)) console.log(`  FAIL ${o.id}: ${o.detail}`)
  for (const id of KNOWN_FAILURES.keys()) {
    if (outcomes.some((o) => o.id === id && o.passed)) console.log(`  ${id} passes now: unlist it`)
  }
}

test('cases that read what earlier ones wrote (sharedState.runsAfter) run after them', () => {
  for (const [i, id] of files.entries()) {
    for (const before of loadSeqCase(id).sharedState.runsAfter) {
      assert.ok(files.indexOf(before) >= 0 && files.indexOf(before) < i, `${before} before ${id}`)
    }
  }
})

test('ADL CTS cases: deliveries, session ends, UI checks, request_valid and global reads', () => {
  // One learner runs every case in id order, as the upstream suite did, so a case that reads
  // system-wide global objectives (sharedState.runsAfter) sees what earlier ones wrote; a course
  // with objectivesGlobalToSystem="false" keeps its own (drive-case.ts).
  const learner: LearnerGlobals = { map: {} }
  const outcomes: CaseOutcome[] = files.map((id) => driveCase(loadSeqCase(id), learner))
  report(outcomes)
  const unexpected = outcomes.filter((o) => !o.passed && !KNOWN_FAILURES.has(o.id))
  assert.deepEqual(
    unexpected.map((o) => `${o.id}: ${o.detail}`),
    [],
  )
})
