/**
 * SCORM 2004 sequencing state kept with the attempt (DESIGN §12, "Sequencing is
 * server-authoritative" and "One rollup"): the activity tree of a package version (built once,
 * versions never change), each attempt's tracking state (JSON on its session row, written with
 * the commit that changes it) and the learner's global objectives (objective maps), which a
 * later SCO, or a later course, reads at launch.
 */
import type { Executor } from '../../infra/db/schema.ts'
import type { ScoStatesTable, SessionsTable } from '../../infra/db/tables/sessions.ts'
import { findVersion } from '../packages/package.repository.ts'
import type { StoredManifest } from '../packages/package-ingest.ts'
import { evaluateCompletionStatus, evaluateSuccessStatus } from '../scorm/data-model/index.ts'
import {
  type ActivityTree,
  buildActivityTree,
  createTrackingState,
  type GlobalObjectiveMap,
  globalObjectiveIds,
  type ObjectiveResult,
  type ScoResults,
  type TrackingState,
} from '../scorm/sequencing/index.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import { saveRolledUpState } from './sequencing-state.repository.ts'
import * as repo from './shared-stores.repository.ts'

/** A package version's activity tree and the global objective ids it refers to. */
export interface Sequencing {
  tree: ActivityTree
  globalIds: string[]
  /** Activities the tree can deliver (its leaves). */
  leaves: number
}

/**
 * Whether the sequencer decides when an attempt ends: SCORM 2004 content with more than one
 * activity to deliver. Its attempt ends when a navigation ends it (exit all, the flow past the
 * end: the session is then closed), not when the root rolls up to completed — a root can
 * complete before the learner has seen the last SCO (CTS OB-10a, RU-13e). A one-SCO course (and
 * SCORM 1.2, and content the engine cannot sequence) ends when it is completed or passed.
 */
export function sequencerEndsAttempt(seq: Sequencing | null): boolean {
  return seq !== null && seq.leaves > 1
}

/**
 * `sequencerEndsAttempt` for a session row, for the launch that decides between resuming an
 * attempt and starting a new one (it reads the version only for a completed open attempt).
 */
export async function sequencerEndsAttemptOf(
  db: Executor,
  session: SessionsTable,
): Promise<boolean> {
  if (session.scorm_version !== '2004') return false
  const scope = scopeOfSession(session)
  const row = await findVersion(db, scope, session.package_id, session.version_id)
  if (!row) return false
  const manifest = JSON.parse(row.manifest) as StoredManifest
  return sequencerEndsAttempt(sequencingOf(session.version_id, '2004', manifest))
}

/** Trees are kept per version (versions are immutable); bounded like the runtime's caches. */
const TREE_CACHE_SIZE = 200
const trees = new Map<string, Sequencing | null>()

/**
 * The activity tree of a SCORM 2004 version's default organization, or null for other content
 * (and for a manifest the engine cannot sequence, whose session keeps the all-SCOs rule).
 */
export function sequencingOf(
  versionId: string,
  version: '1.2' | '2004',
  manifest: StoredManifest,
): Sequencing | null {
  const cached = trees.get(versionId)
  if (cached !== undefined) return cached
  let built: Sequencing | null = null
  if (version === '2004' && manifest.scorm) {
    try {
      const tree = buildActivityTree(manifest.scorm)
      const leaves = Object.values(tree.activities).filter((a) => a.children.length === 0).length
      built = { tree, globalIds: globalObjectiveIds(tree), leaves }
    } catch {
      built = null
    }
  }
  if (trees.size >= TREE_CACHE_SIZE) trees.clear()
  trees.set(versionId, built)
  return built
}

/** The attempt's stored tracking state; null before its first rollup. */
export function storedState(session: SessionsTable): TrackingState | null {
  return session.sequencing_state ? (JSON.parse(session.sequencing_state) as TrackingState) : null
}

/** Where the attempt's global objectives live: the learner's (default) or this attempt's. */
function globalScope(tree: ActivityTree, session: SessionsTable): string {
  return tree.objectivesGlobalToSystem ? `learner:${session.learner_id}` : `session:${session.id}`
}

/** The global objectives the tree refers to, as stored for the learner (or attempt). */
export async function readGlobals(
  db: Executor,
  session: SessionsTable,
  seq: Sequencing,
): Promise<GlobalObjectiveMap> {
  if (seq.globalIds.length === 0) return {}
  const scope = scopeOfSession(session)
  const rows = await repo.findGlobalObjectives(
    db,
    scope,
    globalScope(seq.tree, session),
    seq.globalIds,
  )
  return Object.fromEntries(rows.map((r) => [r.objective_id, JSON.parse(r.value)]))
}

/** Writes the global objectives whose value differs from what was read. */
export async function writeGlobals(
  db: Executor,
  session: SessionsTable,
  seq: Sequencing,
  before: GlobalObjectiveMap,
  after: GlobalObjectiveMap,
  at: string,
): Promise<void> {
  const scope = globalScope(seq.tree, session)
  for (const [id, objective] of Object.entries(after)) {
    const value = JSON.stringify(objective)
    if (before[id] !== undefined && JSON.stringify(before[id]) === value) continue
    const key = { objectiveScope: scope, objectiveId: id }
    await repo.upsertGlobalObjective(db, scopeOfSession(session), key, value, at)
  }
}

export async function saveTrackingState(
  db: Executor,
  session: Pick<SessionsTable, 'id' | 'tenant_id' | 'mode'>,
  state: TrackingState,
): Promise<string> {
  const json = JSON.stringify(state)
  await saveRolledUpState(db, scopeOfSession(session), session.id, json)
  return json
}

function num(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null
  const n = Number(value)
  return Number.isFinite(n) ? n : null
}

const SCORE = ['scaled', 'raw', 'min', 'max'] as const
const OBJECTIVE_ELEMENT =
  /^cmi\.objectives\.(\d+)\.(success_status|completion_status|progress_measure|score\.(?:scaled|raw|min|max))$/

/**
 * What a commit reported to the sequencer: the statuses, scores, progress and objectives among
 * `changed` (elements it set), read from the SCO's `values` as the data model evaluates them
 * (completion threshold, scaled passing score); `ended` adds cmi.exit. Null when the commit
 * changed none of them: nothing to roll up (the commit's fast path).
 */
export function reportedResults(
  changed: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>>,
  ended: boolean,
): ScoResults | null {
  const has = (element: string) => changed[element] !== undefined
  const r: ScoResults = {}
  const threshold = values['cmi.completion_threshold']
  if (has('cmi.completion_status') || (has('cmi.progress_measure') && threshold !== undefined)) {
    r.completion_status = evaluateCompletionStatus(
      values['cmi.completion_status'],
      values['cmi.progress_measure'],
      threshold,
    )
  }
  const passing = values['cmi.scaled_passing_score']
  if (has('cmi.success_status') || (has('cmi.score.scaled') && passing !== undefined)) {
    r.success_status = evaluateSuccessStatus(
      values['cmi.success_status'],
      values['cmi.score.scaled'],
      passing,
    )
  }
  if (has('cmi.progress_measure')) r.progress_measure = num(values['cmi.progress_measure'])
  // Each score field only when set: a field reported null (unknown) would beat the primary
  // objective's cmi.objectives entry for it (ADL's CTS case OB-06).
  for (const field of SCORE) {
    if (has(`cmi.score.${field}`)) r[`score_${field}`] = num(values[`cmi.score.${field}`])
  }
  const objectives = objectiveResults(changed, values)
  if (objectives.length > 0) r.objectives = objectives
  if (ended) r.exit = values['cmi.exit'] ?? ''
  return Object.keys(r).length > 0 ? r : null
}

function objectiveResults(
  changed: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>>,
): ObjectiveResult[] {
  const touched = new Set<string>()
  for (const element of Object.keys(changed)) {
    const index = OBJECTIVE_ELEMENT.exec(element)?.[1]
    if (index !== undefined) touched.add(index)
  }
  const out: ObjectiveResult[] = []
  for (const n of touched) {
    const id = values[`cmi.objectives.${n}.id`]
    if (id === undefined) continue
    const v = (name: string) => values[`cmi.objectives.${n}.${name}`]
    const o: ObjectiveResult = { id }
    if (v('success_status') !== undefined) o.success_status = v('success_status')
    if (v('completion_status') !== undefined) o.completion_status = v('completion_status')
    if (v('progress_measure') !== undefined) o.progress_measure = num(v('progress_measure'))
    for (const field of SCORE) {
      if (v(`score.${field}`) !== undefined) o[`score_${field}`] = num(v(`score.${field}`))
    }
    out.push(o)
  }
  return out
}

/**
 * Results for an attempt without a stored tracking state (started before migration 0016):
 * what each launched SCO's row says it reached. "incomplete" is left out: the row cannot tell a
 * reported one from a launch that reported nothing, and the engine counts both as attempted.
 */
export function resultsOfRows(rows: readonly ScoStatesTable[]): Record<string, ScoResults> {
  const out: Record<string, ScoResults> = {}
  for (const row of rows) {
    if (!row.launched) continue
    const r: ScoResults = {}
    if (row.completion_status === 'completed') r.completion_status = 'completed'
    if (row.success_status === 'passed' || row.success_status === 'failed')
      r.success_status = row.success_status
    if (row.score_scaled !== null) r.score_scaled = row.score_scaled
    if (row.score_raw !== null) r.score_raw = row.score_raw
    if (row.score_min !== null) r.score_min = row.score_min
    if (row.score_max !== null) r.score_max = row.score_max
    if (row.progress_measure !== null) r.progress_measure = row.progress_measure
    out[row.item_id] = r
  }
  return out
}

/** The attempt's state for a rollup: the stored one, or a fresh one rebuilt from its rows. */
export function rollupInput(
  session: SessionsTable,
  rows: readonly ScoStatesTable[],
): { state: TrackingState; results: Record<string, ScoResults> } {
  const state = storedState(session)
  return state
    ? { state, results: {} }
    : { state: createTrackingState(), results: resultsOfRows(rows) }
}
