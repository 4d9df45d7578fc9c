import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { IngestSlots } from '../../../src/modules/packages/unpack/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'

/** A piece of work the test finishes when it chooses. */
function gate() {
  let open = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { open, opened }
}

function busy(err: unknown): boolean {
  assert.ok(isAppError(err), String(err))
  assert.equal(err.code, 'service_unavailable')
  assert.equal(err.status, 503)
  assert.match(err.message, /2 at once/)
  return true
}

describe('ingest slots (bounded concurrent package ingests)', () => {
  test('at most `concurrency` run; the others wait and start in arrival order', async () => {
    const slots = new IngestSlots({ concurrency: 2 })
    const gates = [gate(), gate(), gate(), gate()]
    const started: number[] = []
    const runs = gates.map((g, i) =>
      slots.run(async () => {
        started.push(i)
        await g.opened
        return i
      }),
    )
    await Promise.resolve()
    assert.deepEqual(started, [0, 1])
    assert.equal(slots.running, 2)
    assert.equal(slots.waiting, 2)
    gates[1]?.open()
    assert.equal(await runs[1], 1)
    assert.deepEqual(started, [0, 1, 2])
    gates[0]?.open()
    assert.equal(await runs[0], 0)
    assert.deepEqual(started, [0, 1, 2, 3])
    gates[2]?.open()
    gates[3]?.open()
    assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3])
    assert.equal(slots.running, 0)
  })

  test('a failing ingest frees its slot', async () => {
    const slots = new IngestSlots({ concurrency: 1 })
    await assert.rejects(
      slots.run(async () => {
        throw new Error('bad zip')
      }),
      /bad zip/,
    )
    assert.equal(await slots.run(async () => 'next'), 'next')
    assert.equal(slots.running, 0)
  })

  test('waiting longer than maxWaitMs answers 503, and the queue moves on', async () => {
    const slots = new IngestSlots({ concurrency: 2, maxWaitMs: 1 })
    const g = gate()
    const holders = [slots.run(() => g.opened), slots.run(() => g.opened)]
    await assert.rejects(
      slots.run(async () => 'never'),
      busy,
    )
    assert.equal(slots.waiting, 0)
    g.open()
    await Promise.all(holders)
    assert.equal(await slots.run(async () => 'later'), 'later')
  })

  test('with maxWaiting already waiting, one more is answered 503 at once', async () => {
    const slots = new IngestSlots({ concurrency: 2, maxWaiting: 1 })
    const g = gate()
    const runs = [slots.run(() => g.opened), slots.run(() => g.opened), slots.run(() => g.opened)]
    await assert.rejects(
      slots.run(async () => 'never'),
      busy,
    )
    g.open()
    await Promise.all(runs)
  })
})
