/**
 * Writing what the sequencer decided, inside the request's transaction: the tracking state under
 * the compare-and-set (StateMoved when another writer came first), the global objectives, the
 * session's status, and the delivery of the activity to launch.
 */
import type { Executor } from '../../infra/db/schema.ts'
import { newId } from '../../shared/ids.ts'
import {
  type NavigationOutcome,
  rollupSession,
  type ScoResults,
} from '../scorm/sequencing/index.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import * as sessions from '../sessions/session.repository.ts'
import { updateSessionProgress } from '../sessions/session-progress.ts'
import { isFinished } from '../sessions/session-status.ts'
import { sequencerEndsAttempt, writeGlobals } from './attempt-sequencing.ts'
import { launchItem, suspendLeftDelivery } from './delivery-launch.ts'
import type { Decided, NavigationEnd } from './navigation-answer.ts'
import type { Prepared } from './navigation-engine.ts'
import { navigationRefused } from './navigation-input.ts'
import { StateMoved } from './navigation-retry.ts'
import { compareAndSetState } from './sequencing-state.repository.ts'

/**
 * Writes what the engine decided: the state under the compare-and-set, the global objectives,
 * the session's status from the rollup (an ended attempt is closed), and the delivery of what it
 * identified.
 */
export async function applyOutcome(
  trx: Executor,
  p: Prepared,
  out: NavigationOutcome,
  at: string,
): Promise<Decided> {
  const { loaded, seq } = p
  const sessionId = loaded.session.id
  const deliveryId = out.deliver ? newId('scd') : null
  const json = JSON.stringify(out.state)
  const version = Number(loaded.session.sequencing_version ?? 0)
  const scope = scopeOfSession(loaded.session)
  const written = { json, deliveryId }
  if (!(await compareAndSetState(trx, scope, sessionId, version, written))) throw new StateMoved()
  await writeGlobals(trx, loaded.session, seq, p.globals, out.globals, at)
  const suspending = out.sessionEnded && !out.attemptEnded
  if (suspending && p.left) await suspendLeftDelivery(trx, loaded, p.left.itemId, at)
  const session = await updateSessionProgress(
    trx,
    {
      ...loaded.session,
      sequencing_state: json,
      sequencing_version: version + 1,
      sequencing_delivery_id: deliveryId,
    },
    {
      version: '2004',
      itemCount: loaded.trackedCount,
      at,
      sequencing: { seq, itemId: null, results: {} },
      ...(out.sessionEnded && { ended: { suspended: suspending, sessionTime: null, seconds: 0 } }),
    },
  )
  if (out.attemptEnded) await sessions.updateSession(trx, scope, sessionId, { open: 0 })
  const engine = { seq, state: out.state, globals: out.globals }
  if (!out.deliver || !deliveryId) {
    const reason: NavigationEnd['reason'] = suspending
      ? 'suspended'
      : isFinished(session)
        ? 'completed'
        : 'exited'
    const ended = out.sessionEnded ? { reason, attempt_ended: out.attemptEnded } : null
    return { delivery: null, ended, engine }
  }
  const delivery = await launchItem(trx, { ...loaded, session }, out.deliver, at, deliveryId)
  return { delivery, ended: null, engine }
}

/**
 * A new delivery of the Current Activity (a reload, a tab closed without leaving): the attempt
 * on it goes on, so what the delivery being replaced reported is recorded now (it was only
 * provisional, docs/sequencing.md) — the tracking state and global objectives with it, under
 * the compare-and-set that also names the new delivery, so a stale tab's request is recognised.
 */
export async function relaunchCurrent(trx: Executor, p: Prepared, at: string): Promise<Decided> {
  const { loaded, seq } = p
  const current = p.state.current
  if (current === null) throw navigationRefused('NB.2.1-2', 'No activity is being attempted')
  // A one-SCO course records results at each commit (its attempt ends by the status rule).
  const reported = sequencerEndsAttempt(seq) && p.left ? withoutExit(p.left.results) : null
  const rolled =
    reported && Object.keys(reported).length > 0
      ? rollupSession(
          seq.tree,
          p.state,
          { [p.left?.itemId ?? current]: reported },
          {
            globals: p.globals,
          },
        )
      : null
  const state = rolled?.state ?? p.state
  const globals = rolled?.globals ?? p.globals
  const deliveryId = newId('scd')
  const version = Number(loaded.session.sequencing_version ?? 0)
  const json = rolled
    ? JSON.stringify(state)
    : (loaded.session.sequencing_state ?? JSON.stringify(state))
  const scope = scopeOfSession(loaded.session)
  const written = { json, deliveryId }
  if (!(await compareAndSetState(trx, scope, loaded.session.id, version, written))) {
    throw new StateMoved()
  }
  if (rolled) await writeGlobals(trx, loaded.session, seq, p.globals, globals, at)
  const session = {
    ...loaded.session,
    sequencing_state: json,
    sequencing_version: version + 1,
    sequencing_delivery_id: deliveryId,
  }
  const delivery = await launchItem(trx, { ...loaded, session }, current, at, deliveryId)
  return { delivery, ended: null, engine: { seq, state, globals } }
}

function withoutExit(results: ScoResults): ScoResults {
  const { exit: _exit, ...reported } = results
  return reported
}
