/**
 * What a customer sees of a SCORM 2004 attempt's sequencing (issue 14 point 6, on
 * `GET /api/v1/sessions/{id}`): each activity's status and the global objectives it reads.
 */
import type { Executor } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { findVersion } from '../packages/package.repository.ts'
import type { StoredManifest } from '../packages/package-ingest.ts'
import {
  readGlobals,
  sequencerEndsAttempt,
  sequencingOf,
  storedState,
} from '../runtime/attempt-sequencing.ts'
import { pendingResults } from '../runtime/delivery-results.ts'
import {
  createTrackingState,
  type GlobalObjective,
  rollupSession,
  uiState,
} from '../scorm/sequencing/index.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

type Status<T extends string> = T | 'unknown'

export interface ActivityView {
  id: string
  title: string
  /** Parent activity id; null for the root (the organization). */
  parent: string | null
  /** Activity Attempt Count. */
  attempts: number
  completion_status: Status<'completed' | 'incomplete'>
  success_status: Status<'passed' | 'failed'>
  /** The primary objective's normalized measure (-1..1); null while unknown. */
  measure: number | null
  /** Attempt completion amount (0..1); null while unknown. */
  progress_measure: number | null
  suspended: boolean
}

export interface GlobalObjectiveView {
  id: string
  success_status: Status<'passed' | 'failed'>
  measure: number | null
  completion_status: Status<'completed' | 'incomplete'>
  progress_measure: number | null
  score: { raw: number | null; min: number | null; max: number | null }
}

export interface SequencingView {
  /** Where global objectives live: the learner's across courses, or this attempt's. */
  objectives_global_to_system: boolean
  /** Preorder, the root (the organization) first. */
  activities: ActivityView[]
  global_objectives: GlobalObjectiveView[]
}

const tri = <T extends string>(v: boolean | null | undefined, yes: T, no: T): Status<T> =>
  v === true ? yes : v === false ? no : 'unknown'

function globalView(id: string, g: GlobalObjective): GlobalObjectiveView {
  return {
    id,
    success_status: tri(g.satisfied, 'passed', 'failed'),
    measure: g.measure ?? null,
    completion_status: tri(g.completed, 'completed', 'incomplete'),
    progress_measure: g.progress ?? null,
    score: { raw: g.raw ?? null, min: g.min ?? null, max: g.max ?? null },
  }
}

/** The attempt's sequencing, or undefined for content the engine does not sequence. */
export async function sequencingView(
  db: Executor,
  scope: TenantScope,
  session: SessionsTable,
): Promise<SequencingView | undefined> {
  if (session.scorm_version !== '2004') return undefined
  const row = await findVersion(db, scope, session.package_id, session.version_id)
  if (!row) return undefined
  const manifest = JSON.parse(row.manifest) as StoredManifest
  const seq = sequencingOf(session.version_id, '2004', manifest)
  if (!seq) return undefined
  const stored = storedState(session) ?? createTrackingState()
  const read = await readGlobals(db, session, seq)
  // The SCO being attempted counts as its results say, as in the session's status: they are
  // recorded when the navigation leaves it (an Abandon drops them; docs/sequencing.md).
  const pending = sequencerEndsAttempt(seq) ? await pendingResults(db, session) : {}
  const { state, globals } =
    Object.keys(pending).length > 0
      ? rollupSession(seq.tree, stored, pending, { globals: read })
      : { state: stored, globals: read }
  const { toc } = uiState(seq.tree, state, { globals })
  const activities = toc.map((entry): ActivityView => {
    const def = seq.tree.activities[entry.id]
    const s = state.activities[entry.id] ?? {}
    const primary = def?.objectives.find((o) => o.primary)?.id
    return {
      id: entry.id,
      title: entry.title,
      parent: def?.parent ?? null,
      attempts: s.count ?? 0,
      completion_status: tri(entry.completed, 'completed', 'incomplete'),
      success_status: tri(entry.satisfied, 'passed', 'failed'),
      measure: primary === undefined ? null : (s.objectives?.[primary]?.measure ?? null),
      progress_measure: s.amount ?? null,
      suspended: s.suspended === true,
    }
  })
  return {
    objectives_global_to_system: seq.tree.objectivesGlobalToSystem,
    activities,
    global_objectives: seq.globalIds.map((id) => globalView(id, globals[id] ?? {})),
  }
}
