import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { emptyProgress } from '../../../src/modules/cmi5/move-on.ts'
import {
  checkAuStatement,
  type LaunchFacts,
  type RuleVerdict,
} from '../../../src/modules/cmi5/statement-rules.ts'
import type { JsonObject } from '../../../src/modules/lrs/xapi-primitives.ts'

const REG = '2f2a7f8e-7c1b-4e0a-9a57-3b7d3c1e5a10'
const SID = 'b3b8c1c4-5a55-4b9e-8f0d-6c3f1b0c9e21'
const actor = { account: { homePage: 'https://lms.example', name: 'ann' } }
const facts: LaunchFacts = {
  actor,
  registration: REG,
  activityId: 'https://lms.example/au/0',
  sessionId: SID,
  masteryScore: 0.8,
  launchMode: 'Normal',
  status: 'initialized',
  preferencesRead: true,
  sessionVerbs: [],
  progress: emptyProgress(),
}

function statement(verb: string, result?: Record<string, unknown>, moveOn = false) {
  return {
    id: crypto.randomUUID(),
    timestamp: '2026-11-24T10:00:00.000Z',
    actor,
    verb: { id: `http://adlnet.gov/expapi/verbs/${verb}` },
    object: { id: facts.activityId },
    ...(result && { result }),
    context: {
      registration: REG,
      contextActivities: {
        category: [
          { id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5' },
          ...(moveOn ? [{ id: 'https://w3id.org/xapi/cmi5/context/categories/moveon' }] : []),
        ],
      },
      extensions: {
        'https://w3id.org/xapi/cmi5/context/extensions/sessionid': SID,
        'https://w3id.org/xapi/cmi5/context/extensions/masteryscore': 0.8,
      },
    },
  }
}

/** The statements below are plain JSON built as an AU would: JsonObject is their shape. */
const check = (st: object, f: LaunchFacts, method: string): RuleVerdict =>
  checkAuStatement(st as JsonObject, f, method)

const passed = (scaled: number) =>
  statement('passed', { success: true, duration: 'PT1S', score: { scaled } }, true)

describe('cmi5 statement rules for an AU', () => {
  test('well-formed defined statements pass', () => {
    assert.equal(check(passed(0.9), facts, 'PUT'), null)
    const done = statement('completed', { completion: true, duration: 'PT1S' }, true)
    assert.equal(check(done, facts, 'PUT'), null)
    assert.equal(check(statement('experienced'), facts, 'POST'), null)
  })

  test('order: initialized first and once, one judgement per session, completed once', () => {
    const launched = { ...facts, status: 'launched' as const }
    assert.match(String(check(passed(0.9), launched, 'PUT')), /9\.3\.0\.0-4/)
    assert.equal(check(statement('initialized'), launched, 'PUT'), null)
    assert.match(String(check(statement('initialized'), facts, 'PUT')), /9\.3\.2\.0-3/)
    const judged = { ...facts, sessionVerbs: ['http://adlnet.gov/expapi/verbs/failed'] }
    assert.match(String(check(passed(0.9), judged, 'PUT')), /9\.3\.0\.0-2/)
    const completed = { ...facts, progress: { ...emptyProgress(), completed: true } }
    const again = statement('completed', { completion: true, duration: 'PT1S' }, true)
    assert.match(String(check(again, completed, 'PUT')), /9\.3\.0\.0-2/)
  })

  test('results: mastery score, success and completion flags, duration, raw needs a range', () => {
    assert.match(String(check(passed(0.5), facts, 'PUT')), /9\.3\.4\.0-2/)
    const noDuration = statement('passed', { success: true }, true)
    assert.match(String(check(noDuration, facts, 'PUT')), /9\.5\.4\.1/)
    const raw = statement('passed', { success: true, duration: 'PT1S', score: { raw: 5 } }, true)
    assert.match(String(check(raw, facts, 'PUT')), /9\.5\.1\.0-3/)
    const withSuccess = statement(
      'completed',
      { completion: true, success: true, duration: 'PT1S' },
      true,
    )
    assert.match(String(check(withSuccess, facts, 'PUT')), /9\.5\.2\.0-3/)
  })

  test('who and where: actor, registration, session id, UTC timestamp, LMS verbs', () => {
    const other = { ...passed(0.9), actor: { mbox: 'mailto:x@example.com' } }
    assert.match(String(check(other, facts, 'PUT')), /9\.2\.0\.0-3/)
    const st = passed(0.9)
    st.context.registration = crypto.randomUUID()
    assert.match(String(check(st, facts, 'PUT')), /9\.6\.1\.0-1/)
    const local = { ...passed(0.9), timestamp: '2026-11-24T10:00:00.000-06:00' }
    assert.match(String(check(local, facts, 'PUT')), /9\.7\.0\.0-2/)
    const satisfied = statement('satisfied')
    satisfied.verb.id = 'https://w3id.org/xapi/adl/verbs/satisfied'
    assert.match(String(check(satisfied, facts, 'PUT')), /only the LMS/)
  })
})
