import type { DataModelOptions } from '../scorm/data-model/index.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import { progressRowOnly } from '../sessions/session-progress.ts'
import {
  appliedAnswer,
  type CommitInput,
  commitOf,
  type Outcome,
  stepProgress,
  stepped,
  validate,
  writesBesides,
} from './commit-apply.ts'
import type { CommitBatches } from './commit-batches.ts'
import { changedElements, scoRowOf, withScoRow } from './delivery-record.ts'
import type { LiveDelivery } from './live-deliveries.ts'

/**
 * PostgreSQL: a commit of an open delivery whose only writes are the SCO row, its record and the
 * session's progress — nearly every commit while a learner works — written by one statement
 * with the other such commits of the moment (commit-batches.ts), instead of a transaction of five
 * round trips of its own. The rows are
 * computed exactly as `apply` computes them (the same functions); what `apply` would write
 * besides them (a final commit's end of the delivery, a session event, a change to the progress
 * rollup, the sequencing engine's state, shared data, warnings) makes the commit ineligible, and
 * it goes through `apply` in a transaction as before.
 *
 * Undefined: not eligible (nothing written). Null: the compare-and-set found the delivery
 * elsewhere (nothing written; the caller rereads the rows, as `apply`'s null). Otherwise the
 * commit is stored and durable.
 */
export async function applyAtOnce(
  batches: CommitBatches,
  live: LiveDelivery,
  input: CommitInput,
  at: string,
  options: DataModelOptions,
): Promise<Outcome | null | undefined> {
  const { loaded } = live
  const { delta } = input
  if (delta.final) return undefined
  const result = validate(live, delta, options)
  if (writesBesides(loaded, input, result)) return undefined
  const { commit, launch } = commitOf(live, result, delta.seq)
  const changed = changedElements(live.record, result.accepted)
  const row = scoRowOf(loaded, live.states, live.itemId, { ...launch, changed }, at, { commit })
  const states = withScoRow(live.states, row)
  const session = progressRowOnly(
    loaded.session,
    stepProgress(live, changed, launch.values, states, at),
  )
  if (!session) return undefined
  const scope = scopeOfSession(loaded.session)
  if (!(await batches.write({ scope, row, expected: commit.expected, changed, session }))) {
    return null
  }
  return {
    answer: appliedAnswer(delta, result, session),
    next: stepped(live, { ...loaded, session }, states, delta.seq, changed),
    changes: { writes: result.writes, record: changed },
  }
}
