import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  createRuntime,
  type Delta,
  type TerminateSummary,
} from '../../../src/modules/scorm/data-model/index.ts'
import { LEARNER } from './helpers.ts'

function recording(version: '2004' | '1.2' = '2004', accept = () => true) {
  const deltas: Delta[] = []
  const terminated: TerminateSummary[] = []
  const config = {
    initial: LEARNER,
    onCommit: (d: Delta) => {
      deltas.push(d)
      return accept()
    },
    onTerminate: (s: TerminateSummary) => {
      terminated.push(s)
    },
  }
  return { deltas, terminated, config, version }
}

describe('runtime deltas', () => {
  test('each commit sends the values changed since the previous one, numbered from 1', () => {
    const { deltas, config } = recording()
    const { api } = createRuntime({ version: '2004', ...config })
    api.Initialize('')
    api.SetValue('cmi.location', 'p1')
    api.SetValue('cmi.interactions.01.id', 'q1') // fails: index 1 before 0
    api.SetValue('cmi.interactions.0.id', 'q1')
    api.Commit('')
    api.SetValue('cmi.location', 'p1') // unchanged: not a change
    api.SetValue('cmi.suspend_data', 's')
    api.Commit('')
    assert.deepEqual(deltas, [
      {
        seq: 1,
        fromSeq: 0,
        final: false,
        values: { 'cmi.location': 'p1', 'cmi.interactions.0.id': 'q1' },
      },
      { seq: 2, fromSeq: 1, final: false, values: { 'cmi.suspend_data': 's' } },
    ])
  })

  test('a Commit with nothing new sends nothing; Terminate always sends a final delta', () => {
    const { deltas, terminated, config } = recording()
    const { api } = createRuntime({ version: '2004', ...config })
    api.Initialize('')
    assert.equal(api.Commit(''), 'true')
    assert.equal(deltas.length, 0)
    api.SetValue('adl.nav.request', 'continue')
    api.SetValue('cmi.exit', 'suspend')
    api.Terminate('')
    assert.deepEqual(deltas, [
      {
        seq: 1,
        fromSeq: 0,
        final: true,
        values: { 'adl.nav.request': 'continue', 'cmi.exit': 'suspend' },
      },
    ])
    assert.equal(terminated[0]?.navRequest, 'continue')
    assert.equal(terminated[0]?.exit, 'suspend')
  })

  test('a refused commit fails the call and keeps the changes pending under the same number', () => {
    let accept = false
    const { deltas, config } = recording('1.2', () => accept)
    const rt = createRuntime({ version: '1.2', ...config })
    rt.api.LMSInitialize('')
    rt.api.LMSSetValue('cmi.core.lesson_location', 'x')
    assert.equal(rt.api.LMSCommit(''), 'false')
    assert.equal(rt.api.LMSGetLastError(), '101')
    assert.deepEqual(rt.pendingDelta(), {
      seq: 1,
      fromSeq: 0,
      final: false,
      values: { 'cmi.core.lesson_location': 'x' },
    })
    accept = true
    assert.equal(rt.api.LMSCommit(''), 'true')
    assert.deepEqual(
      deltas.map((d) => d.seq),
      [1, 1],
    )
    assert.equal(rt.pendingDelta(), undefined)
  })

  test('commitNow lets the player autosave or flush on unload without the SCO noticing', () => {
    const { deltas, config } = recording()
    const rt = createRuntime({ version: '2004', ...config })
    rt.api.Initialize('')
    rt.api.GetValue('cmi.bogus')
    rt.api.SetValue('cmi.location', 'x')
    assert.equal(rt.api.GetLastError(), '0')
    rt.api.GetValue('cmi.bogus')
    assert.equal(rt.commitNow()?.seq, 1)
    assert.equal(rt.commitNow(), undefined)
    assert.deepEqual(rt.commitNow({ final: true }), { seq: 2, fromSeq: 1, final: true, values: {} })
    assert.equal(rt.api.GetLastError(), '401')
    assert.equal(deltas.length, 2)
  })

  test('changesSince rebuilds one delta over several commits', () => {
    const { config } = recording()
    const rt = createRuntime({ version: '2004', ...config })
    rt.api.Initialize('')
    rt.api.SetValue('cmi.location', 'a')
    rt.api.Commit('')
    rt.api.SetValue('cmi.suspend_data', 'b')
    rt.api.Commit('')
    rt.api.SetValue('cmi.location', 'c')
    assert.deepEqual(rt.changesSince(0), {
      seq: 2,
      fromSeq: 0,
      final: false,
      values: { 'cmi.location': 'c', 'cmi.suspend_data': 'b' },
    })
    assert.deepEqual(rt.changesSince(1).values, { 'cmi.location': 'c', 'cmi.suspend_data': 'b' })
  })

  test('state() is plain JSON with the LMS values and the SCO values', () => {
    const rt = createRuntime({ version: '2004', initial: { ...LEARNER, launchData: 'ld' } })
    rt.api.Initialize('')
    rt.api.SetValue('cmi.score.raw', '7')
    const state = rt.state()
    assert.deepEqual(JSON.parse(JSON.stringify(state)), state)
    assert.equal(state.values['cmi.launch_data'], 'ld')
    assert.equal(state.values['cmi.score.raw'], '7')
    assert.equal(rt.read('cmi.score.raw'), '7')
    assert.equal(rt.read('cmi.exit'), undefined)
    assert.equal(rt.phase(), 'running')
  })
})
