import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import {
  createRuntime,
  type ScormVersion,
  validateDelta,
} from '../../../src/modules/scorm/data-model/index.ts'
import { LEARNER } from './helpers.ts'

const initial = {
  ...LEARNER,
  completionThreshold: '0.5',
  sharedData: [{ id: 'a' }, { id: 'b', writable: false }],
}

// Small indices and weights towards arrays make dependent sequences (id, type, patterns) likely.
const i = fc.integer({ min: 0, max: 1 })

const element2004 = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      'cmi.interactions.0.id',
      'cmi.interactions.0.type',
      'cmi.interactions.0.learner_response',
      'cmi.interactions.0.correct_responses.0.pattern',
      'cmi.interactions.0.correct_responses.1.pattern',
      'cmi.interactions.0.objectives.0.id',
      'cmi.interactions.0.objectives.1.id',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'cmi.location',
      'cmi.suspend_data',
      'cmi.score.scaled',
      'cmi.score.raw',
      'cmi.progress_measure',
      'cmi.completion_status',
      'cmi.success_status',
      'cmi.exit',
      'cmi.session_time',
      'cmi.credit',
      'cmi.learner_preference.language',
      'cmi.learner_preference.audio_level',
      'adl.nav.request',
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        i,
        fc.constantFrom('id', 'score.scaled', 'success_status', 'completion_status', 'description'),
      )
      .map(([n, leaf]) => `cmi.objectives.${n}.${leaf}`),
  },
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        i,
        fc.constantFrom(
          'id',
          'type',
          'learner_response',
          'timestamp',
          'latency',
          'result',
          'weighting',
        ),
      )
      .map(([n, leaf]) => `cmi.interactions.${n}.${leaf}`),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(i, i)
      .map(([n, m]) => `cmi.interactions.${n}.correct_responses.${m}.pattern`),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(i, i).map(([n, m]) => `cmi.interactions.${n}.objectives.${m}.id`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(i, fc.constantFrom('comment', 'location', 'timestamp'))
      .map(([n, l]) => `cmi.comments_from_learner.${n}.${l}`),
  },
  { weight: 1, arbitrary: i.map((n) => `adl.data.${n}.store`) },
)

const element12 = fc.oneof(
  fc.constantFrom(
    'cmi.interactions.0.type',
    'cmi.interactions.0.student_response',
    'cmi.interactions.0.correct_responses.0.pattern',
  ),
  fc.constantFrom(
    'cmi.core.lesson_location',
    'cmi.core.lesson_status',
    'cmi.core.score.raw',
    'cmi.core.exit',
    'cmi.core.session_time',
    'cmi.suspend_data',
    'cmi.comments',
    'cmi.student_preference.audio',
  ),
  fc
    .tuple(i, fc.constantFrom('id', 'status', 'score.raw'))
    .map(([n, l]) => `cmi.objectives.${n}.${l}`),
  fc
    .tuple(
      i,
      fc.constantFrom('id', 'type', 'student_response', 'time', 'result', 'latency', 'weighting'),
    )
    .map(([n, l]) => `cmi.interactions.${n}.${l}`),
  fc.tuple(i, i).map(([n, m]) => `cmi.interactions.${n}.correct_responses.${m}.pattern`),
)

const anyValue = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'a',
    'b',
    'a[,]b',
    'a[,]a',
    '[,]',
    '1[.]a',
    '1[.]a[,]2[.]b',
    '[.]x',
    '1[:]2',
    '5[:]1',
    '5',
    '-1',
    '0.5',
    '2',
    '100',
    't',
    'true',
    'false',
    'PT1M',
    'P',
    '00:01:00',
    '2004-01-01T10:00:00',
    '{lang=en}x',
    '{lang=zz}x',
    '{case_matters=true}x',
    'suspend',
    'completed',
    'passed',
    'unknown',
    'incomplete',
    'continue',
    '{target=x}choice',
    'urn:a:b',
    'urn:',
    'wrong',
    'correct',
  ),
  fc.string({ maxLength: 12 }),
)
const TYPES = [
  'choice',
  'numeric',
  'true-false',
  'fill-in',
  'long-fill-in',
  'likert',
  'matching',
  'performance',
  'sequencing',
  'other',
]
const RESPONSES = [
  'a',
  'b',
  'a[,]b',
  'b[,]a',
  'a[,]a',
  '',
  '1[.]a',
  '1[:]2',
  '3',
  'true',
  'f',
  '{lang=en}x',
  '[.]x',
  '{order_matters=false}a[,]b',
]

/** Values that fit the element half the time, so dependent sequences (id, type, patterns) happen. */
function valueFor(element: string) {
  const fitting = element.endsWith('.id')
    ? fc.constantFrom('a', 'b', 'urn:x:y')
    : element.endsWith('.type')
      ? fc.constantFrom(...TYPES)
      : /(pattern|_response)$/.test(element)
        ? fc.constantFrom(...RESPONSES)
        : anyValue
  return fc.oneof(fitting, anyValue)
}

const op = (element: fc.Arbitrary<string>) =>
  element.chain((e) => fc.tuple(fc.constant(e), valueFor(e)))

/** Independent checks of what the rules promise: items exist in order, with their ids, unique. */
function assertStructure(version: ScormVersion, values: Record<string, string>) {
  const arrays = new Map<string, Set<number>>()
  for (const key of Object.keys(values)) {
    for (const m of key.matchAll(
      /\.(objectives|interactions|correct_responses|comments_from_learner)\.(\d+)\./g,
    )) {
      const array = key.slice(0, (m.index ?? 0) + (m[1] ?? '').length + 1)
      arrays.set(array, (arrays.get(array) ?? new Set()).add(Number(m[2])))
    }
  }
  for (const [array, items] of arrays) {
    const indices = [...items].sort((a, b) => a - b)
    assert.deepEqual(
      indices,
      indices.map((_, n) => n),
      `${array} has gaps`,
    )
    if (version !== '2004' || /(comments_from_learner|correct_responses)$/.test(array)) continue
    const ids = indices.map((n) => values[`${array}.${n}.id`])
    assert.ok(
      ids.every((id) => id !== undefined),
      `${array} has an item without id`,
    )
    if (!array.endsWith('interactions'))
      assert.equal(new Set(ids).size, ids.length, `${array} ids repeat`)
  }
  const limit = version === '2004' ? 64000 : 4096
  assert.ok((values['cmi.suspend_data'] ?? '').length <= limit)
}

/** The SCO-writable part of a state, as a delta the server replays from scratch. */
function replayFromScratch(version: ScormVersion, values: Record<string, string>) {
  return validateDelta(version, { seq: 1, fromSeq: 0, values }, { initial })
}

describe('data-model properties', () => {
  for (const [version, element] of [
    ['2004', element2004],
    ['1.2', element12],
  ] as const) {
    test(`${version}: random SetValue sequences never store an invalid value`, () => {
      fc.assert(
        fc.property(fc.array(op(element), { minLength: 20, maxLength: 100 }), (ops) => {
          const rt = createRuntime({ version, initial } as Parameters<typeof createRuntime>[0])
          const api = rt.api as unknown as { [k: string]: (...a: string[]) => string }
          const init = version === '2004' ? 'Initialize' : 'LMSInitialize'
          const setValue = version === '2004' ? 'SetValue' : 'LMSSetValue'
          api[init]?.('')
          for (const [el, v] of ops) api[setValue]?.(el, v)
          // Every stored value must survive an independent replay from the launch state, in any
          // order the server chooses, and lead to exactly the player's state.
          const state = rt.state()
          assertStructure(version, { ...state.values })
          const replay = replayFromScratch(version, { ...state.values })
          assert.deepEqual(replay.errors, [])
          assert.deepEqual(replay.state, state)
        }),
        { numRuns: 400 },
      )
    })
  }

  test('validateDelta never throws on arbitrary JSON input', () => {
    const elementish = fc.oneof(element2004, element12, fc.string({ maxLength: 30 }))
    const delta = fc.oneof(
      fc.jsonValue(),
      fc.record({
        seq: fc.jsonValue(),
        fromSeq: fc.jsonValue(),
        final: fc.jsonValue(),
        values: fc.oneof(
          fc.jsonValue(),
          fc.dictionary(elementish, fc.oneof(anyValue, fc.jsonValue())),
        ),
      }),
    )
    fc.assert(
      fc.property(delta, fc.constantFrom<ScormVersion>('1.2', '2004'), (d, version) => {
        const r = validateDelta(version, JSON.parse(JSON.stringify(d ?? null)), { initial })
        for (const v of Object.values(r.accepted)) assert.equal(typeof v, 'string')
        assert.ok(Array.isArray(r.errors))
      }),
      { numRuns: 500 },
    )
  })
})
