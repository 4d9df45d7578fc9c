/**
 * Plays one CTS delivery's SCO against the real data-model runtime and returns what the
 * sequencer needs from it: the run-time values the SCO set, as ScoResults.
 */
import {
  type Api2004,
  createRuntime,
  endSession,
  evaluateCompletionStatus,
  evaluateSuccessStatus,
  type LaunchData,
  type NavigationProvider,
} from '../../../../../src/modules/scorm/data-model/index.ts'
import type {
  LaunchObjective,
  ObjectiveResult,
  ScoResults,
} from '../../../../../src/modules/scorm/sequencing/index.ts'
import type { Step } from '../../cts/case-types.ts'
import type { ManifestItem } from '../../cts/manifest-items.ts'
import type { CheckTally } from './check-tally.ts'
import { gradeSeqStep, seqStepKind } from './grade-step.ts'

export interface PlayedSco {
  api: Api2004
  /** The values the SCO has set so far, turned into ScoResults. */
  results(): ScoResults
  /** What the next launch of this activity resumes from (endSession's carry-over), or null when
   * the session did not end suspended. */
  carry(): Record<string, string> | null
}

/** What the engine hands the run-time at launch, and the suspended session's data when the
 * activity's last session ended suspended (the engine's objective values are laid over it). The
 * run-time data resumes even where the sequencer keeps no state (tracked="false", OB-14b). */
export interface SeqLaunch {
  objectives: LaunchObjective[]
  navigation: NavigationProvider
  carry?: Record<string, string>
}

/** Runs the delivery's steps; the ones only a sequencer can answer are graded into `tally`. */
export function playSco(
  item: ManifestItem | undefined,
  steps: Step[],
  resume: boolean,
  launch: SeqLaunch,
  tally: CheckTally,
): PlayedSco {
  const rt = createRuntime({
    version: '2004',
    initial: launchData(item, resume, launch),
    navigation: launch.navigation,
    onCommit: () => true,
  })
  const api = rt.api
  const set = new Map<string, string>()
  for (const step of steps) {
    let element = step.element ?? ''
    if (step.indexLookup) {
      const index = lookupIndex(api, step.indexLookup)
      if (index === undefined) {
        if (item?.mappedObjectives.has(step.indexLookup.id))
          tally.record('globalRead', `${step.key}: no cmi.objectives entry ${step.indexLookup.id}`)
        continue
      }
      element = element.replace(step.indexLookup.placeholder, String(index))
    }
    const kind = seqStepKind(api, step, element, item)
    if (step.method === 'Initialize') api.Initialize('')
    else if (step.method === 'Commit') api.Commit('')
    else if (step.method === 'SetValue' && api.SetValue(element, step.value ?? '') === 'true')
      set.set(element, step.value ?? '')
    else if (kind) {
      const actual = api.GetValue(element)
      tally.record(kind, gradeSeqStep(step, element, actual, api.GetLastError()))
    }
  }
  return {
    api,
    results: () => toResults(api, set),
    carry: () => {
      const end = endSession('2004', rt.state())
      return end.suspended ? end.carry : null
    },
  }
}

function launchData(
  item: ManifestItem | undefined,
  resume: boolean,
  launch: SeqLaunch,
): LaunchData {
  const fromEngine = new Map(launch.objectives.map((o) => [o.id, o.values]))
  return {
    learnerId: 'cts-learner-2',
    learnerName: 'Learner, Two',
    entry: resume || launch.carry ? 'resume' : 'ab-initio',
    ...(item?.completionThreshold ? { completionThreshold: item.completionThreshold } : {}),
    ...(item?.scaledPassingScore ? { scaledPassingScore: item.scaledPassingScore } : {}),
    ...(launch.carry ? { values: launch.carry } : {}),
    objectives: (item?.objectives ?? []).map((o) => {
      const values = fromEngine.get(o.id)
      return values && Object.keys(values).length > 0 ? { id: o.id, values } : { id: o.id }
    }),
  }
}

function lookupIndex(api: Api2004, lookup: NonNullable<Step['indexLookup']>): number | undefined {
  const count = Number(api.GetValue(lookup.countElement))
  for (let n = 0; n < count; n++) {
    if (api.GetValue(lookup.idElement.replace('{n}', String(n))) === lookup.id) return n
  }
  return undefined
}

const num = (v: string | undefined): number | null | undefined =>
  v === undefined ? undefined : v === '' ? null : Number(v)

function toResults(api: Api2004, set: Map<string, string>): ScoResults {
  const get = (e: string) => api.GetValue(e)
  const out: ScoResults = {}
  // A status counts as reported when the SCO set it, or when a threshold decides it.
  if (set.has('cmi.completion_status') || set.has('cmi.progress_measure')) {
    const completion = evaluateCompletionStatus(
      get('cmi.completion_status'),
      get('cmi.progress_measure') || undefined,
      get('cmi.completion_threshold') || undefined,
    )
    if (set.has('cmi.completion_status') || completion !== 'unknown')
      out.completion_status = completion
  }
  if (set.has('cmi.success_status') || set.has('cmi.score.scaled')) {
    const success = evaluateSuccessStatus(
      get('cmi.success_status'),
      get('cmi.score.scaled') || undefined,
      get('cmi.scaled_passing_score') || undefined,
    )
    if (set.has('cmi.success_status') || success !== 'unknown') out.success_status = success
  }
  const scaled = num(set.get('cmi.score.scaled'))
  if (scaled !== undefined) out.score_scaled = scaled
  const progress = num(set.get('cmi.progress_measure'))
  if (progress !== undefined) out.progress_measure = progress
  for (const k of ['raw', 'min', 'max'] as const) {
    const v = num(set.get(`cmi.score.${k}`))
    if (v !== undefined) out[`score_${k}`] = v
  }
  if (set.has('cmi.exit')) out.exit = set.get('cmi.exit') as string
  const objectives = new Map<string, ObjectiveResult>()
  for (const [element, value] of set) {
    const m =
      /^cmi\.objectives\.(\d+)\.(success_status|completion_status|progress_measure|score\.(scaled|raw|min|max))$/.exec(
        element,
      )
    if (!m) continue
    const id = get(`cmi.objectives.${m[1]}.id`)
    const o = objectives.get(id) ?? { id }
    objectives.set(id, o)
    if (m[2] === 'success_status') o.success_status = value
    else if (m[2] === 'completion_status') o.completion_status = value
    else if (m[2] === 'progress_measure') o.progress_measure = num(value) ?? null
    else o[`score_${m[3] as 'scaled' | 'raw' | 'min' | 'max'}`] = num(value) ?? null
  }
  if (objectives.size > 0) out.objectives = [...objectives.values()]
  return out
}
