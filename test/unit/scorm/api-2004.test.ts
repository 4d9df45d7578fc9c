import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createRuntime } from '../../../src/modules/scorm/data-model/index.ts'
import { api2004, LEARNER } from './helpers.ts'

describe('SCORM 2004 API state machine', () => {
  test('calls before Initialize fail with the "before initialization" codes', () => {
    const { api } = createRuntime({ version: '2004', initial: LEARNER })
    assert.equal(api.GetValue('cmi.location'), '')
    assert.equal(api.GetLastError(), '122')
    assert.equal(api.SetValue('cmi.location', 'x'), 'false')
    assert.equal(api.GetLastError(), '132')
    assert.equal(api.Commit(''), 'false')
    assert.equal(api.GetLastError(), '142')
    assert.equal(api.Terminate(''), 'false')
    assert.equal(api.GetLastError(), '112')
  })

  test('Initialize twice answers 103, and a non-empty argument 201', () => {
    const { api } = createRuntime({ version: '2004', initial: LEARNER })
    assert.equal(api.Initialize('x'), 'false')
    assert.equal(api.GetLastError(), '201')
    assert.equal(api.Initialize(''), 'true')
    assert.equal(api.Initialize(''), 'false')
    assert.equal(api.GetLastError(), '103')
  })

  test('after Terminate every call fails with the "after termination" codes', () => {
    const { api } = api2004()
    assert.equal(api.Terminate(''), 'true')
    assert.equal(api.GetLastError(), '0')
    const codes = [
      [api.GetValue('cmi.location'), api.GetLastError()],
      [api.SetValue('cmi.location', 'x'), api.GetLastError()],
      [api.Commit(''), api.GetLastError()],
      [api.Terminate(''), api.GetLastError()],
      [api.Initialize(''), api.GetLastError()],
    ]
    assert.deepEqual(codes, [
      ['', '123'],
      ['false', '133'],
      ['false', '143'],
      ['false', '113'],
      ['false', '104'],
    ])
  })

  test('GetErrorString and GetDiagnostic leave the last error alone', () => {
    const { api } = api2004()
    api.GetValue('cmi.bogus')
    assert.equal(api.GetErrorString('401'), 'Undefined Data Model Element')
    assert.equal(api.GetErrorString('001'), '')
    assert.equal(api.GetErrorString('0'), 'No Error')
    assert.match(api.GetDiagnostic(''), /cmi\.bogus/)
    assert.ok(api.GetDiagnostic('').length < 255)
    assert.equal(api.GetLastError(), '401')
  })

  test('the API object carries version 1.0 for API discovery', () => {
    assert.equal(api2004().api.version, '1.0')
  })

  test('non-string arguments from plain-JS content are coerced', () => {
    const { api, get } = api2004()
    assert.equal(api.SetValue('cmi.score.raw', 85 as unknown as string), 'true')
    assert.deepEqual(get('cmi.score.raw'), ['85', '0'])
    assert.equal(api.Commit(undefined), 'true')
  })
})

describe('SCORM 2004 element access', () => {
  test('read-only, write-only, undefined and keyword elements', () => {
    const { set, get } = api2004()
    assert.deepEqual(set('cmi.credit', 'no-credit'), ['false', '404'])
    assert.deepEqual(get('cmi.exit'), ['', '405'])
    assert.deepEqual(get('cmi.session_time'), ['', '405'])
    assert.deepEqual(get('cmi.nonsense'), ['', '401'])
    assert.deepEqual(get('cmi'), ['', '401'])
    assert.deepEqual(get('cmi.objectives'), ['', '401'])
    assert.deepEqual(get(''), ['', '301'])
    assert.deepEqual(set('', 'x'), ['false', '351'])
    assert.deepEqual(set('cmi._version', '2'), ['false', '404'])
    assert.deepEqual(set('cmi.objectives._count', '2'), ['false', '404'])
    assert.deepEqual(get('cmi.location._children'), ['', '301'])
    assert.deepEqual(get('cmi.location._count'), ['', '301'])
  })

  test('defaults and not-initialized values', () => {
    const { get } = api2004()
    assert.deepEqual(get('cmi._version'), ['1.0', '0'])
    assert.deepEqual(get('cmi.location'), ['', '403'])
    assert.deepEqual(get('cmi.max_time_allowed'), ['', '403'])
    assert.deepEqual(get('cmi.completion_status'), ['unknown', '0'])
    assert.deepEqual(get('cmi.total_time'), ['PT0H0M0S', '0'])
    assert.deepEqual(get('cmi.time_limit_action'), ['continue,no message', '0'])
    assert.deepEqual(get('cmi.learner_preference.audio_level'), ['1', '0'])
    assert.deepEqual(get('cmi.learner_name'), ['Ada Lovelace', '0'])
    assert.deepEqual(get('adl.nav.request'), ['_none_', '0'])
  })

  test('vocabularies, reals and ranges', () => {
    const { set } = api2004()
    assert.deepEqual(set('cmi.exit', 'suspend'), ['true', '0'])
    assert.deepEqual(set('cmi.exit', 'later'), ['false', '406'])
    assert.deepEqual(set('cmi.completion_status', 'done'), ['false', '406'])
    assert.deepEqual(set('cmi.score.scaled', '1.5'), ['false', '407'])
    assert.deepEqual(set('cmi.score.scaled', 'abc'), ['false', '406'])
    assert.deepEqual(set('cmi.score.scaled', '-1'), ['true', '0'])
    assert.deepEqual(set('cmi.score.raw', '34,000'), ['false', '406'])
    assert.deepEqual(set('cmi.progress_measure', '1.0000001'), ['false', '407'])
    assert.deepEqual(set('cmi.learner_preference.audio_level', '-0.1'), ['false', '407'])
    assert.deepEqual(set('cmi.learner_preference.audio_captioning', '2'), ['false', '406'])
  })

  test('time types: ISO 8601 timestamps and durations', () => {
    const { set } = api2004()
    for (const ok of ['PT1H30M', 'P1Y2M3DT4H5M6.7S', 'PT0S', 'P14D']) {
      assert.deepEqual(set('cmi.session_time', ok), ['true', '0'], ok)
    }
    for (const bad of ['P', 'PT', 'P1DT', '01:00:00', 'PT1.5H', '-PT1S']) {
      assert.deepEqual(set('cmi.session_time', bad), ['false', '406'], bad)
    }
    set('cmi.comments_from_learner.0.comment', 'hi')
    const ts = 'cmi.comments_from_learner.0.timestamp'
    for (const ok of [
      '2004',
      '2004-02-29',
      '2004-04-01T09:45:58.5',
      '2004-04-01T09:45:58.55-03:00',
    ]) {
      assert.deepEqual(set(ts, ok), ['true', '0'], ok)
    }
    for (const bad of [
      '1969',
      '2039',
      '2005-02-29',
      '2004-04-01T09:45:58Z',
      '2004-04-01T24',
      '2004-4',
    ]) {
      assert.deepEqual(set(ts, bad), ['false', '406'], bad)
    }
  })

  test('localized strings and language codes', () => {
    const { set, get } = api2004()
    assert.deepEqual(set('cmi.comments_from_learner.0.comment', '{lang=en-GB}Nice'), ['true', '0'])
    assert.deepEqual(get('cmi.comments_from_learner.0.comment'), ['{lang=en-GB}Nice', '0'])
    assert.deepEqual(set('cmi.comments_from_learner.0.comment', '{lang=}x'), ['false', '406'])
    assert.deepEqual(set('cmi.comments_from_learner.0.comment', '{lang=zz}x'), ['false', '406'])
    for (const ok of ['', 'fr', 'fra', 'fre', 'zh-Hant', 'x-klingon', 'i-navajo', 'EN-us']) {
      assert.deepEqual(set('cmi.learner_preference.language', ok), ['true', '0'], ok)
    }
    for (const bad of ['sp', 'english', 'x', 'ruq-JM', 'fr_FR', 'é']) {
      assert.deepEqual(set('cmi.learner_preference.language', bad), ['false', '406'], bad)
    }
  })

  test('suspend_data is limited to 64000 characters', () => {
    const { set } = api2004()
    assert.deepEqual(set('cmi.suspend_data', 'x'.repeat(64000)), ['true', '0'])
    assert.deepEqual(set('cmi.suspend_data', 'x'.repeat(64001)), ['false', '351'])
  })
})

describe('SCORM 2004 LMS rules and navigation', () => {
  test('completion threshold and scaled passing score override the SCO status', () => {
    const { set, get } = api2004({ completionThreshold: '0.8', scaledPassingScore: '0.5' })
    set('cmi.completion_status', 'completed')
    set('cmi.success_status', 'passed')
    assert.deepEqual(get('cmi.completion_status'), ['unknown', '0'])
    assert.deepEqual(get('cmi.success_status'), ['unknown', '0'])
    set('cmi.progress_measure', '0.9')
    set('cmi.score.scaled', '0.4')
    assert.deepEqual(get('cmi.completion_status'), ['completed', '0'])
    assert.deepEqual(get('cmi.success_status'), ['failed', '0'])
  })

  test('adl.nav.request accepts the request vocabulary and targets', () => {
    const { set, get } = api2004()
    for (const ok of [
      'continue',
      'previous',
      'exitAll',
      'suspendAll',
      '{target=item_2}choice',
      '{target=x}jump',
      '_none_',
    ]) {
      assert.deepEqual(set('adl.nav.request', ok), ['true', '0'], ok)
    }
    assert.deepEqual(set('adl.nav.request', 'choice'), ['false', '406'])
    assert.deepEqual(set('adl.nav.request', 'start'), ['false', '406'])
    assert.deepEqual(get('adl.nav.request'), ['_none_', '0'])
  })

  test('request_valid comes from the navigation provider, else unknown', () => {
    const asked: string[] = []
    const { get, set } = api2004(
      {},
      {
        navigation: {
          requestValid: (request, target) => {
            asked.push(`${request}:${target ?? ''}`)
            return request === 'continue' ? 'true' : 'false'
          },
        },
      },
    )
    assert.deepEqual(get('adl.nav.request_valid.continue'), ['true', '0'])
    assert.deepEqual(get('adl.nav.request_valid.choice.{target=a.b}'), ['false', '0'])
    assert.deepEqual(set('adl.nav.request_valid.continue', 'true'), ['false', '404'])
    assert.deepEqual(asked, ['continue:', 'choice:a.b'])
    assert.deepEqual(api2004().get('adl.nav.request_valid.previous'), ['unknown', '0'])
  })

  test('adl.data honours the read/write permissions of the map', () => {
    const { set, get } = api2004({
      sharedData: [
        { id: 'shared', store: 'hello' },
        { id: 'readonly', writable: false },
        { id: 'writeonly', readable: false },
      ],
    })
    assert.deepEqual(get('adl.data._count'), ['3', '0'])
    assert.deepEqual(get('adl.data.0.store'), ['hello', '0'])
    assert.deepEqual(set('adl.data.0.id', 'x'), ['false', '404'])
    assert.deepEqual(set('adl.data.1.store', 'x'), ['false', '404'])
    assert.deepEqual(get('adl.data.1.store'), ['', '403'])
    assert.deepEqual(set('adl.data.2.store', 'x'), ['true', '0'])
    assert.deepEqual(get('adl.data.2.store'), ['', '405'])
    assert.deepEqual(set('adl.data.3.store', 'x'), ['false', '351'])
  })
})
