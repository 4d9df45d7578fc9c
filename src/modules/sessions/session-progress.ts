import type { Executor } from '../../infra/db/schema.ts'
import type { ScoStatesTable, SessionsTable } from '../../infra/db/tables/sessions.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import { findVersion } from '../packages/package.repository.ts'
import type { StoredManifest } from '../packages/package-ingest.ts'
import { recordSessionResult } from '../reports/progress-rollup.repository.ts'
import { addCounts, countsOf } from '../reports/progress-rollup.ts'
import {
  readGlobals,
  rollupInput,
  type Sequencing,
  saveTrackingState,
  sequencerEndsAttempt,
  sequencingOf,
  writeGlobals,
} from '../runtime/attempt-sequencing.ts'
import { pendingResults } from '../runtime/delivery-results.ts'
import { findScoStates } from '../runtime/runtime.repository.ts'
import type { ScoResults } from '../scorm/sequencing/index.ts'
import { courseItems, trackedItems } from './course-items.ts'
import { scopeOfSession, sessionEventData } from './session.mapper.ts'
import * as repo from './session.repository.ts'
import {
  type Completion,
  isFinished,
  type ScoStatus,
  type SessionRollup,
  sessionStatus,
} from './session-status.ts'

const COMPLETION_ORDER: Record<Completion, number> = {
  'not attempted': 0,
  incomplete: 1,
  completed: 2,
}

/**
 * A SCO's status within one attempt only moves forward in completion (a relaunch that starts
 * fresh does not undo "completed"); success and score follow the latest report that has them.
 */
export function mergeScoStatus(previous: ScoStatus | null, next: ScoStatus): ScoStatus {
  if (!previous) return next
  const completion =
    COMPLETION_ORDER[next.completion] >= COMPLETION_ORDER[previous.completion]
      ? next.completion
      : previous.completion
  const hasScore = next.scaled !== null || next.raw !== null
  return {
    completion,
    success: next.success !== 'unknown' ? next.success : previous.success,
    scaled: hasScore ? next.scaled : previous.scaled,
    raw: hasScore ? next.raw : previous.raw,
    min: hasScore ? next.min : previous.min,
    max: hasScore ? next.max : previous.max,
    progressMeasure: next.progressMeasure ?? previous.progressMeasure,
  }
}

export function statusOfRow(row: ScoStatesTable): ScoStatus {
  return {
    completion: row.completion_status as Completion,
    success: row.success_status as ScoStatus['success'],
    scaled: row.score_scaled,
    raw: row.score_raw,
    min: row.score_min,
    max: row.score_max,
    progressMeasure: row.progress_measure,
  }
}

/** What a progress update is given (`updateSessionProgress`). */
export interface ProgressInput {
  version: '1.2' | '2004'
  itemCount: number
  at: string
  /** Set when a launch (delivery) of a SCO just ended. */
  ended?: { suspended: boolean; sessionTime: string | null; seconds: number }
  /** The session's SCO rows when the caller already has them current; read otherwise. */
  scos?: ScoStatesTable[]
  /** SCORM 2004: the version's activity tree and what the SCO `itemId` just reported. */
  sequencing?: SequencingInput | null
}

type SessionEvent = 'session.completed' | 'session.failed' | 'session.suspended'

/**
 * Recomputes the session from its SCOs (`sessionStatus`, the one rollup) and writes the session
 * events its transitions cause, in the caller's transaction: `session.completed` once when it
 * reaches completed (a passed session is completed too), `session.failed` once when a launch ends
 * with the session failed, `session.suspended` when the session becomes suspended (the learner
 * leaves mid-course with suspend; once per sitting, however many requests say so). Each event
 * carries the session as just computed, so its payload always agrees with its name. In-progress
 * commits never write an event otherwise.
 */
export async function updateSessionProgress(
  trx: Executor,
  session: SessionsTable,
  input: ProgressInput,
): Promise<SessionsTable> {
  const scos = input.scos ?? (await findScoStates(trx, scopeOfSession(session), session.id))
  let sequencingState = session.sequencing_state ?? null
  let r: SessionRollup
  if (input.version === '2004' && input.sequencing) {
    const rolled = await engineStatus(trx, session, scos, {
      ...input,
      sequencing: input.sequencing,
    })
    r = rolled.rollup
    sequencingState = rolled.state ?? sequencingState
  } else {
    r = sessionStatus(input.version, input.itemCount, scos.map(statusOfRow))
  }
  const next = progressed(session, input, r, sequencingState)
  await recordSessionEvents(trx, session, next, { ...input, r })
  await repo.saveSessionProgress(trx, scopeOfSession(session), next)
  await recordSessionResult(trx, scopeOfSession(session), session, next)
  return next
}

/**
 * The session row `updateSessionProgress` would write, when writing that row is all it would
 * do: no session event, no change to the learner-progress rollup, no run of the sequencing
 * engine (nothing read, nothing else written). Null otherwise. For a writer that sends a
 * commit's writes as one statement (PostgreSQL, commit-at-once.ts).
 */
export function progressRowOnly(
  session: SessionsTable,
  input: ProgressInput & { scos: ScoStatesTable[] },
): SessionsTable | null {
  const statuses = input.scos.map(statusOfRow)
  let r: SessionRollup
  if (input.version === '2004' && input.sequencing) {
    if (!unchangedByEngine(session, input.sequencing, input.ended)) return null
    r = storedRollup(session, statuses)
  } else {
    r = sessionStatus(input.version, input.itemCount, statuses)
  }
  const next = progressed(session, input, r, session.sequencing_state ?? null)
  if (dueEvents(session, next, { ...input, r }).length > 0) return null
  return changesResult(session, next) ? null : next
}

/**
 * Whether `recordSessionResult(…, before, after)` writes anything: its counts or the session's
 * time changed (the condition of its early return).
 */
function changesResult(before: SessionsTable, after: SessionsTable): boolean {
  if (Number(before.time_spent_seconds) !== Number(after.time_spent_seconds)) return true
  return Object.values(addCounts(countsOf(after), countsOf(before), -1)).some((v) => v !== 0)
}

/** The session row after a progress update whose rollup is `r` (nothing written). */
function progressed(
  session: SessionsTable,
  input: Pick<ProgressInput, 'at' | 'ended'>,
  r: SessionRollup,
  sequencingState: string | null,
): SessionsTable {
  const reachedCompletion = reachesCompletion(r)
  return {
    ...session,
    completion_status: r.completion,
    success_status: r.success,
    score_scaled: r.score.scaled,
    score_raw: r.score.raw,
    score_min: r.score.min,
    score_max: r.score.max,
    progress_percent: r.progressPercent,
    updated_at: input.at,
    sequencing_state: sequencingState,
    completed_at: session.completed_at ?? (reachedCompletion ? input.at : null),
    ...(input.ended && {
      suspended: input.ended.suspended && !reachedCompletion ? 1 : 0,
      session_time: input.ended.sessionTime ?? session.session_time,
      time_spent_seconds: Number(session.time_spent_seconds) + input.ended.seconds,
    }),
  }
}

function reachesCompletion(r: SessionRollup): boolean {
  return isFinished({ completion_status: r.completion, success_status: r.success })
}

/**
 * The events `updateSessionProgress` describes that moving from `session` to `next` causes, in
 * the order they are written; each once (its `*_event_at` column is the proof).
 */
function dueEvents(
  session: SessionsTable,
  next: SessionsTable,
  input: { ended?: { suspended: boolean }; r: SessionRollup },
): SessionEvent[] {
  const due: SessionEvent[] = []
  if (reachesCompletion(input.r) && !session.completed_event_at) due.push('session.completed')
  if (input.ended && input.r.success === 'failed' && !session.failed_event_at) {
    due.push('session.failed')
  }
  // The transition into suspended, once: a Suspend All after a final commit with cmi.exit
  // suspend ends the same sitting twice (the commit, then the navigation). A new delivery
  // takes the session out of suspended (delivery-launch.ts), so each sitting left suspended
  // counts.
  if (next.suspended === 1 && session.suspended !== 1) due.push('session.suspended')
  return due
}

/**
 * Writes the events due (`dueEvents`), each carrying the session as just computed, its
 * `*_event_at` column set on `next` first.
 */
async function recordSessionEvents(
  trx: Executor,
  session: SessionsTable,
  next: SessionsTable,
  input: { at: string; ended?: { suspended: boolean }; r: SessionRollup },
): Promise<void> {
  const scope = scopeOfSession(session)
  for (const type of dueEvents(session, next, input)) {
    if (type === 'session.completed') next.completed_event_at = input.at
    if (type === 'session.failed') next.failed_event_at = input.at
    await recordAuditEvent(trx, scope, {
      type,
      entityType: 'session',
      entityId: session.id,
      severity: type === 'session.failed' ? 'warn' : 'info',
      data: sessionEventData(next),
      occurredAt: input.at,
    })
  }
}

/** What a SCORM 2004 progress update gives the engine. */
export interface SequencingInput {
  seq: Sequencing
  itemId: string | null
  /** What the SCO reported (reportedResults); null: no status, score or progress changed. */
  results: ScoResults | null
}

/**
 * The SCORM 2004 status: the engine's rollup from the attempt's stored tracking state and the
 * SCO's new results. A multi-SCO course's results are provisional (only the status is written;
 * the navigation that leaves the SCO records them, docs/sequencing.md); a one-SCO course's are
 * recorded at once, the state and changed global objectives written in the caller's
 * transaction. The fast path: a commit that reports nothing new to an attempt that has a state
 * keeps the session's status as stored (it cannot have changed), without reading anything.
 */
async function engineStatus(
  trx: Executor,
  session: SessionsTable,
  scos: readonly ScoStatesTable[],
  input: { itemCount: number; at: string; ended?: unknown; sequencing: SequencingInput },
): Promise<{ rollup: SessionRollup; state?: string }> {
  const statuses = scos.map(statusOfRow)
  const { seq, itemId, results } = input.sequencing
  if (unchangedByEngine(session, input.sequencing, input.ended)) {
    return { rollup: storedRollup(session, statuses) }
  }
  const base = rollupInput(session, scos)
  const globals = await readGlobals(trx, session, seq)
  if (sequencerEndsAttempt(seq)) {
    // Provisional: the SCO's results reach the tracking state and the global objectives when
    // its attempt ends, by the navigation that leaves it (End Attempt) — an Abandon throws them
    // away. Until then the session shows the rollup with them, written nowhere else.
    const engine = { ...(await withPending(trx, session, base)), tree: seq.tree, globals }
    return { rollup: sessionStatus('2004', input.itemCount, statuses, engine) }
  }
  if (itemId !== null && results) base.results[itemId] = { ...base.results[itemId], ...results }
  const r = sessionStatus('2004', input.itemCount, statuses, { ...base, tree: seq.tree, globals })
  if (!r.engine) return { rollup: r }
  await writeGlobals(trx, session, seq, globals, r.engine.globals, input.at)
  return { rollup: r, state: await saveTrackingState(trx, session, r.engine.state) }
}

/** engineStatus's fast path: a commit that reports nothing new to an attempt with a state. */
function unchangedByEngine(
  session: SessionsTable,
  sequencing: SequencingInput,
  ended: unknown,
): boolean {
  return Boolean(session.sequencing_state) && !sequencing.results && !ended
}

/** The session's status as stored (the engine's fast path), moved to incomplete once launched. */
function storedRollup(session: SessionsTable, statuses: readonly ScoStatus[]): SessionRollup {
  const launched = statuses.some((s) => s.completion !== 'not attempted')
  return {
    completion:
      session.completion_status === 'not attempted' && launched
        ? 'incomplete'
        : session.completion_status,
    success: session.success_status,
    score: {
      scaled: session.score_scaled,
      raw: session.score_raw,
      min: session.score_min,
      max: session.score_max,
    },
    progressPercent: Number(session.progress_percent ?? 0),
  }
}

/**
 * A SCORM session's status recomputed from its SCOs by the one rule, for the launch that decides
 * between resuming it and a new attempt: a row written by older code may say "passed" after the
 * first of several SCOs. Undefined for sessions without SCO records (cmi5, xAPI), whose stored
 * status stands.
 */
export async function recomputedStatus(
  db: Executor,
  session: SessionsTable,
): Promise<SessionRollup | undefined> {
  if (!session.scorm_version) return undefined
  const scope = scopeOfSession(session)
  const scos = await findScoStates(db, scope, session.id)
  if (scos.length === 0) return undefined
  const version = await findVersion(db, scope, session.package_id, session.version_id)
  const manifest = version ? (JSON.parse(version.manifest) as StoredManifest) : null
  const items = manifest ? trackedItems(courseItems(manifest)).length : 0
  const statuses = scos.map(statusOfRow)
  const seq = manifest && sequencingOf(session.version_id, session.scorm_version, manifest)
  if (!seq) return sessionStatus(session.scorm_version, items, statuses)
  // Global objectives another course changed since may change this attempt's rollup.
  const globals = await readGlobals(db, session, seq)
  const base = rollupInput(session, scos)
  const input = sequencerEndsAttempt(seq) ? await withPending(db, session, base) : base
  const engine = { ...input, tree: seq.tree, globals }
  return sessionStatus(session.scorm_version, items, statuses, engine)
}

/** A rollup's input with the results of the SCO the sequencer has not yet left (provisional). */
async function withPending(
  db: Executor,
  session: SessionsTable,
  base: ReturnType<typeof rollupInput>,
): Promise<ReturnType<typeof rollupInput>> {
  const results = { ...base.results }
  for (const [id, r] of Object.entries(await pendingResults(db, session))) {
    results[id] = { ...results[id], ...r }
  }
  return { state: base.state, results }
}
