import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { compactEntries, indexEntries } from '../../../src/modules/lrs/statement.indexer.ts'

describe('statement index entries', () => {
  it('writes each filterable value once, related repeats of direct values left out', () => {
    const entries = indexEntries({
      actor: { mbox: 'mailto:learner@example.com' },
      verb: { id: 'http://adlnet.gov/expapi/verbs/answered' },
      object: { id: 'http://example.com/q1' },
      authority: { mbox: 'mailto:lrs@example.com' },
      context: {
        registration: 'AAAAAAAA-0000-4000-8000-000000000000',
        instructor: { mbox: 'mailto:learner@example.com' },
        contextActivities: {
          parent: [{ id: 'http://example.com/course' }],
          grouping: [{ id: 'http://example.com/course' }, { id: 'http://example.com/q1' }],
        },
      },
    })
    assert.deepEqual(entries, [
      { kind: 'verb', value: 'http://adlnet.gov/expapi/verbs/answered' },
      { kind: 'agent', value: 'mbox:mailto:learner@example.com' },
      { kind: 'activity', value: 'http://example.com/q1' },
      { kind: 'registration', value: 'aaaaaaaa-0000-4000-8000-000000000000' },
      { kind: 'agent_rel', value: 'mbox:mailto:lrs@example.com' },
      { kind: 'activity_rel', value: 'http://example.com/course' },
    ])
  })

  it('compacts a statement with many related activities as one with few', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      kind: 'activity_rel' as const,
      value: `http://example.com/a/${i % 20}`,
    }))
    const entries = [{ kind: 'activity' as const, value: 'http://example.com/a/3' }, ...many]
    const compacted = compactEntries(entries)
    assert.equal(compacted.length, 20)
    assert.deepEqual(compacted[0], { kind: 'activity', value: 'http://example.com/a/3' })
    assert.ok(!compacted.some((e) => e.kind === 'activity_rel' && e.value.endsWith('/a/3')))
    // Below the size where Sets are keyed, the same rule by scanning.
    const few = compactEntries(entries.slice(0, 10))
    assert.deepEqual(
      few.map((e) => `${e.kind} ${e.value.slice(-3)}`),
      ['activity a/3', ...[0, 1, 2, 4, 5, 6, 7, 8].map((i) => `activity_rel a/${i}`)],
    )
  })
})
