import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { api2004 } from './helpers.ts'

describe('SCORM 2004 arrays', () => {
  test('objectives: id first, in order, unique, write-once', () => {
    const { set, get } = api2004()
    assert.deepEqual(get('cmi.objectives.0.id'), ['', '301'])
    assert.deepEqual(set('cmi.objectives.0.score.raw', '5'), ['false', '408'])
    assert.deepEqual(set('cmi.objectives.1.id', 'o2'), ['false', '351'])
    assert.deepEqual(set('cmi.objectives.0.id', 'urn:'), ['false', '406'])
    assert.deepEqual(set('cmi.objectives.0.id', 'has space'), ['false', '406'])
    assert.deepEqual(set('cmi.objectives.0.id', 'urn:adl:obj/1'), ['true', '0'])
    assert.deepEqual(set('cmi.objectives.1.id', 'urn:adl:obj/1'), ['false', '351'])
    assert.deepEqual(set('cmi.objectives.0.id', 'urn:adl:obj/1'), ['true', '0'])
    assert.deepEqual(set('cmi.objectives.0.id', 'other'), ['false', '351'])
    assert.deepEqual(get('cmi.objectives._count'), ['1', '0'])
    assert.deepEqual(get('cmi.objectives.0.success_status'), ['unknown', '0'])
    assert.deepEqual(get('cmi.objectives.0.score._children'), ['min,max,scaled,raw', '0'])
  })

  test('interactions: type before responses, correct-response limits per type', () => {
    const { set, get } = api2004()
    assert.deepEqual(set('cmi.interactions.0.type', 'choice'), ['false', '408'])
    assert.deepEqual(set('cmi.interactions.0.id', 'q1'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.learner_response', 'a'), ['false', '408'])
    assert.deepEqual(set('cmi.interactions.0.correct_responses.0.pattern', 'a'), ['false', '408'])
    assert.deepEqual(set('cmi.interactions.0.type', 'true-false'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.correct_responses.0.pattern', 'true'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.correct_responses.1.pattern', 'false'), [
      'false',
      '351',
    ])
    assert.deepEqual(set('cmi.interactions.0.objectives.0.id', 'o1'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.objectives.1.id', 'o1'), ['false', '351'])
    assert.deepEqual(get('cmi.interactions.0.correct_responses._count'), ['1', '0'])
    assert.deepEqual(get('cmi.interactions.1.correct_responses._count'), ['', '301'])
  })

  test('choice patterns must differ from each other; a type change must fit stored responses', () => {
    const { set } = api2004()
    set('cmi.interactions.0.id', 'q1')
    set('cmi.interactions.0.type', 'choice')
    assert.deepEqual(set('cmi.interactions.0.correct_responses.0.pattern', 'a[,]b'), ['true', '0'])
    assert.deepEqual(set('cmi.interactions.0.correct_responses.1.pattern', 'b[,]a'), [
      'false',
      '351',
    ])
    assert.deepEqual(set('cmi.interactions.0.type', 'numeric'), ['false', '351'])
    assert.deepEqual(set('cmi.interactions.0.type', 'sequencing'), ['true', '0'])
  })

  test('learner_response and pattern formats per interaction type', () => {
    const cases: Array<[string, string, string[], string[]]> = [
      // type, element, valid, invalid
      ['true-false', 'learner_response', ['true', 'false'], ['t', '1', '']],
      ['choice', 'learner_response', ['a', 'a[,]b', ''], ['a[,]a', '[,]', 'a b']],
      ['fill-in', 'learner_response', ['text', '{lang=fr}oui[,]non', '[,]'], ['{lang=xx}a']],
      ['long-fill-in', 'learner_response', ['any [,] text', '{lang=de}Hallo'], ['{lang=}a']],
      ['likert', 'learner_response', ['strongly_agree'], ['a[,]b']],
      ['matching', 'learner_response', ['1[.]a[,]2[.]b'], ['1[.]', '1', '1[.]a[.]b']],
      ['performance', 'learner_response', ['step1[.]answer one', '[.]x'], ['[.]', 'x']],
      ['sequencing', 'learner_response', ['a[,]b[,]a'], ['a[,]', '[,]']],
      ['numeric', 'learner_response', ['3.5', '-2'], ['', '1[:]2', 'ten']],
      ['other', 'learner_response', ['anything at all {}[,]'], []],
      [
        'numeric',
        'correct_responses.0.pattern',
        ['1[:]5', '[:]5', '2[:]', '4'],
        ['5[:]1', 'a[:]b'],
      ],
      [
        'fill-in',
        'correct_responses.0.pattern',
        ['{case_matters=true}{order_matters=false}a[,]b'],
        ['{case_matters=yes}a'],
      ],
      [
        'long-fill-in',
        'correct_responses.0.pattern',
        ['{lang=en}{case_matters=true}Text'],
        ['{case_matters=maybe}x'],
      ],
      [
        'performance',
        'correct_responses.0.pattern',
        ['{order_matters=false}s1[.]1[:]3'],
        ['s1[.]3[:]1'],
      ],
    ]
    for (const [type, element, valid, invalid] of cases) {
      const { set } = api2004()
      set('cmi.interactions.0.id', 'q')
      assert.deepEqual(set('cmi.interactions.0.type', type), ['true', '0'])
      for (const v of valid) {
        assert.deepEqual(
          set(`cmi.interactions.0.${element}`, v),
          ['true', '0'],
          `${type} ${element} ${v}`,
        )
      }
      for (const v of invalid) {
        assert.deepEqual(
          set(`cmi.interactions.0.${element}`, v),
          ['false', '406'],
          `${type} ${element} ${v}`,
        )
      }
    }
  })

  test('comments_from_lms are read-only values supplied at launch', () => {
    const { set, get } = api2004({
      commentsFromLms: [{ comment: 'Welcome', timestamp: '2024-01-01T10:00:00' }],
    })
    assert.deepEqual(get('cmi.comments_from_lms._count'), ['1', '0'])
    assert.deepEqual(get('cmi.comments_from_lms.0.comment'), ['Welcome', '0'])
    assert.deepEqual(get('cmi.comments_from_lms.0.location'), ['', '403'])
    assert.deepEqual(set('cmi.comments_from_lms.0.comment', 'x'), ['false', '404'])
  })
})
