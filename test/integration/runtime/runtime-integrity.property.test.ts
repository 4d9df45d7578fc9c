import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import fc from 'fast-check'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { multiScoPackage } from '../sessions/multi-sco-package.ts'
import { launch, startPlayer, uploadGolf, uploadZip } from '../sessions/runtime-helpers.ts'

/** Learner-writable elements with valid values that ending a launch never evaluates. */
const ELEMENTS = {
  '2004': {
    'cmi.location': fc.constantFrom('p1', 'p2', 'quiz', ''),
    'cmi.suspend_data': fc.string({ maxLength: 40 }),
    'cmi.score.raw': fc.integer({ min: 0, max: 100 }).map(String),
    'cmi.interactions.0.id': fc.constantFrom('q0'),
    'cmi.learner_preference.audio_level': fc.constantFrom('0', '0.5', '2'),
  },
  '1.2': {
    'cmi.core.lesson_location': fc.constantFrom('p1', 'p2', 'quiz', ''),
    'cmi.suspend_data': fc.string({ maxLength: 40 }),
    'cmi.core.score.raw': fc.integer({ min: 0, max: 100 }).map(String),
    'cmi.interactions.0.id': fc.constantFrom('q0'),
    'cmi.student_preference.text': fc.constantFrom('-1', '0', '1'),
  },
} as const
const EXIT = { '2004': 'cmi.exit', '1.2': 'cmi.core.exit' } as const
const COMPLETE = {
  '2004': { 'cmi.completion_status': 'completed', 'cmi.exit': 'normal' },
  '1.2': { 'cmi.core.lesson_status': 'completed', 'cmi.core.exit': '' },
} as const

const defined = (values: Record<string, string | undefined>) =>
  Object.fromEntries(
    Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined),
  )

type Action =
  | { kind: 'launch' }
  | { kind: 'open'; item: number }
  | { kind: 'commit'; values: Record<string, string | undefined>; final: boolean; exit: string }
  | { kind: 'complete' }

const actions = (version: '1.2' | '2004'): fc.Arbitrary<Action[]> =>
  fc.array(
    fc.oneof(
      { weight: 1, arbitrary: fc.constant({ kind: 'launch' as const }) },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('open' as const),
          item: fc.integer({ min: 1, max: 2 }),
        }),
      },
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('commit' as const),
          values: fc.record(ELEMENTS[version] as Record<string, fc.Arbitrary<string>>, {
            requiredKeys: [],
          }),
          final: fc.boolean(),
          exit: fc.constantFrom('suspend', version === '2004' ? 'normal' : 'logout', ''),
        }),
      },
      { weight: 1, arbitrary: fc.constant({ kind: 'complete' as const }) },
    ),
    { minLength: 1, maxLength: 12 },
  )

/**
 * Issue 11, "Done when": for any sequence of launches, deliveries, commits and relaunches of one
 * learner, no element value that was committed is ever lost or changed except by a later commit
 * of the same attempt. Through the real HTTP endpoints, on both databases.
 */
describeEachDatabase('property: committed runtime data is never lost', (database) => {
  let t: TestApp
  let tenant: TestTenant
  /** A one-SCO SCORM 2004 course (RuntimeBasicCalls) and a two-SCO SCORM 1.2 course. */
  const courses: Array<{ version: '1.2' | '2004'; pkg: string; multi: boolean }> = []
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('growth')
    courses.push({
      version: '2004',
      pkg: await uploadGolf(t, tenant.testKey, 'RuntimeBasicCalls_SCORM20043rdEdition.zip'),
      multi: false,
    })
    courses.push({
      version: '1.2',
      pkg: await uploadZip(t, tenant.testKey, multiScoPackage('1.2', 2)),
      multi: true,
    })
  })
  after(() => t.close())

  test('any sequence of launches, deliveries, commits and relaunches', async () => {
    let run = 0
    const course = fc.constantFrom(0, 1).chain((index) => {
      const c = courses[index] as (typeof courses)[number]
      return fc.tuple(fc.constant(c), actions(c.version))
    })
    await fc.assert(
      fc.asyncProperty(course, async ([{ version, pkg, multi }, steps]) => {
        const learner = `prop-${run++}@example.com`
        /** Per attempt (session id) and SCO: element → the value its commits last stored. */
        const expected = new Map<string, Map<string, Record<string, string>>>()
        let launchUrl: string | undefined
        let sessionId: string | undefined
        let sco: Awaited<ReturnType<Awaited<ReturnType<typeof startPlayer>>['deliver']>> | null =
          null
        let itemId = ''
        let seq = 0
        const check = async () => {
          for (const [id, items] of expected) {
            const res = await t.app.inject({
              url: `/api/v1/sessions/${id}`,
              headers: bearer(tenant.testKey),
            })
            const data = res.json().cmi_data as Record<string, unknown>
            for (const [item, values] of items) {
              const cmi = (multi ? data[item] : data) as Record<string, string> | undefined
              for (const [element, value] of Object.entries(values)) {
                assert.equal(
                  cmi?.[element],
                  value,
                  `${id} ${item} ${element} after ${JSON.stringify(steps)}`,
                )
              }
            }
          }
        }
        for (const step of steps) {
          if (step.kind === 'launch' || !launchUrl) {
            const launched = await launch(t, tenant.testKey, pkg, learner)
            launchUrl = launched.launch_url
            sessionId = launched.session_id
            if (!expected.has(sessionId)) expected.set(sessionId, new Map())
            sco = null
            if (step.kind === 'launch') continue
          }
          if (step.kind === 'open' || !sco) {
            // The same launch URL opened again (a relaunch), a new delivery of a SCO.
            const player = await startPlayer(t, launchUrl)
            itemId =
              step.kind === 'open' && multi ? `item_${step.item}` : player.started.current_item_id
            sco = await player.deliver(itemId)
            seq = 0
            if (step.kind === 'open') continue
          }
          const values: Record<string, string> =
            step.kind === 'complete'
              ? { ...COMPLETE[version] }
              : { ...defined(step.values), [EXIT[version]]: step.exit }
          const final = step.kind === 'complete' || (step.kind === 'commit' && step.final)
          seq++
          const res = await sco.post({ seq, fromSeq: seq - 1, final, values })
          assert.equal(res.statusCode, 200, res.body)
          const answer = res.json()
          if (answer.applied && sessionId) {
            const refused = new Set(answer.errors.map((e: { element: string }) => e.element))
            const items = expected.get(sessionId) ?? new Map<string, Record<string, string>>()
            const record = items.get(itemId) ?? {}
            for (const [element, value] of Object.entries(values)) {
              if (!refused.has(element) && element !== EXIT[version]) record[element] = value
            }
            items.set(itemId, record)
            expected.set(sessionId, items)
          }
          if (final) sco = null
          await check()
        }
        await check()
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 40) },
    )
  })
})
