import {
  type ActivityTree,
  type GlobalObjectiveMap,
  rollupSession,
  type ScoResults,
  type TrackingState,
} from '../scorm/sequencing/index.ts'

/**
 * How SCORM's vocabularies map onto the spec's narrower ones (issue 3, point 8):
 *
 * | SCORM value                        | completion_status | success_status |
 * | ---------------------------------- | ----------------- | -------------- |
 * | 1.2 lesson_status passed           | completed         | passed         |
 * | 1.2 lesson_status failed           | completed         | failed         |
 * | 1.2 lesson_status completed        | completed         | unknown        |
 * | 1.2 lesson_status incomplete       | incomplete        | unknown        |
 * | 1.2 lesson_status browsed          | incomplete        | unknown        |
 * | 1.2 lesson_status not attempted    | not attempted     | unknown        |
 * | 2004 completion_status unknown     | incomplete once the SCO was launched, else not attempted |
 * | 2004 success_status                | passed / failed / unknown as is    |
 */
export type Completion = 'not attempted' | 'incomplete' | 'completed'
export type Success = 'unknown' | 'passed' | 'failed'

export interface ScoStatus {
  completion: Completion
  success: Success
  scaled: number | null
  raw: number | null
  min: number | null
  max: number | null
  progressMeasure: number | null
}

function num(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null
  const n = Number(value)
  return Number.isFinite(n) ? n : null
}

export function mapLessonStatus12(lessonStatus: string | undefined): {
  completion: Completion
  success: Success
} {
  switch (lessonStatus) {
    case 'passed':
      return { completion: 'completed', success: 'passed' }
    case 'failed':
      return { completion: 'completed', success: 'failed' }
    case 'completed':
      return { completion: 'completed', success: 'unknown' }
    case 'incomplete':
    case 'browsed':
      return { completion: 'incomplete', success: 'unknown' }
    default:
      return { completion: 'not attempted', success: 'unknown' }
  }
}

export function mapStatus2004(
  completion: string | undefined,
  success: string | undefined,
  launched: boolean,
): { completion: Completion; success: Success } {
  const c: Completion =
    completion === 'completed' || completion === 'incomplete' || completion === 'not attempted'
      ? completion
      : launched
        ? 'incomplete'
        : 'not attempted'
  const s: Success = success === 'passed' || success === 'failed' ? success : 'unknown'
  return { completion: c, success: s }
}

/**
 * 1.2 scores are raw only; `scaled` is derived from the range when min and max are known,
 * else read as a percentage (the 1.2 convention), clamped to -1..1.
 */
export function scaledFromRaw(
  raw: number | null,
  min: number | null,
  max: number | null,
): number | null {
  if (raw === null) return null
  const scaled = min !== null && max !== null && max > min ? (raw - min) / (max - min) : raw / 100
  return Math.max(-1, Math.min(1, Math.round(scaled * 1e7) / 1e7))
}

/** The status of one SCO from its (evaluated) data-model values. */
export function scoStatus(
  version: '1.2' | '2004',
  values: Readonly<Record<string, string>>,
  launched: boolean,
): ScoStatus {
  if (version === '1.2') {
    const mapped = mapLessonStatus12(values['cmi.core.lesson_status'])
    const raw = num(values['cmi.core.score.raw'])
    const min = num(values['cmi.core.score.min'])
    const max = num(values['cmi.core.score.max'])
    const completion =
      mapped.completion === 'not attempted' && launched ? 'incomplete' : mapped.completion
    return {
      ...mapped,
      completion,
      raw,
      min,
      max,
      scaled: scaledFromRaw(raw, min, max),
      progressMeasure: null,
    }
  }
  const mapped = mapStatus2004(
    values['cmi.completion_status'],
    values['cmi.success_status'],
    launched,
  )
  return {
    ...mapped,
    scaled: num(values['cmi.score.scaled']),
    raw: num(values['cmi.score.raw']),
    min: num(values['cmi.score.min']),
    max: num(values['cmi.score.max']),
    progressMeasure: num(values['cmi.progress_measure']),
  }
}

export interface SessionRollup {
  completion: Completion
  success: Success
  score: { scaled: number | null; raw: number | null; min: number | null; max: number | null }
  progressPercent: number
}

/** A SCO counts as done for the session when it is completed, or passed. */
function done(s: ScoStatus): boolean {
  return s.completion === 'completed' || s.success === 'passed'
}

/** What the SCORM 2004 branch gives the sequencing engine's rollup (session-sequencing.ts). */
export interface EngineRollupInput {
  tree: ActivityTree
  /** The attempt's tracking state (the stored one, or a fresh one). */
  state: TrackingState
  /** Results SCOs reported since the state was stored, by item identifier. */
  results: Record<string, ScoResults>
  globals: GlobalObjectiveMap
}

/** The session's status, and for SCORM 2004 the engine's state after its rollup. */
export interface SessionStatusResult extends SessionRollup {
  /** The tracking state and global objectives to store (SCORM 2004 with `engine` only). */
  engine?: { state: TrackingState; globals: GlobalObjectiveMap }
}

/**
 * The one function deciding a session's status from its SCOs (DESIGN §12, "one rollup"). Every
 * writer of a session's status — commits, ended launches, the launch that decides between
 * resuming and a new attempt — goes through it, so the stored status, the events and the launch
 * rule cannot disagree. SCORM 2004 with its activity tree (`engine`): the root activity's
 * rolled-up values from the sequencing engine; SCORM 1.2 (and 2004 content the engine cannot
 * sequence): every SCO.
 */
export function sessionStatus(
  version: '1.2' | '2004',
  items: number,
  scos: readonly ScoStatus[],
  engine?: EngineRollupInput,
): SessionStatusResult {
  if (version === '2004' && engine) return engineRollup(items, scos, engine)
  return allScosRollup(items, scos)
}

/**
 * The root activity's rollup (rollupSession: rollup rules, rollupObjectiveSatisfied,
 * rollupProgressCompletion, objectiveMeasureWeight). The engine's "unknown" or "not attempted"
 * reads incomplete once a SCO was launched; the score is the root's measure (a one-SCO course
 * keeps its raw/min/max); progress is the root's completion amount when the engine rolls one up,
 * else the share of SCOs done.
 */
function engineRollup(
  items: number,
  scos: readonly ScoStatus[],
  engine: EngineRollupInput,
): SessionStatusResult {
  const r = rollupSession(engine.tree, engine.state, engine.results, { globals: engine.globals })
  const launched = scos.some((s) => s.completion !== 'not attempted')
  const completion: Completion =
    r.completion_status === 'completed'
      ? 'completed'
      : r.completion_status === 'incomplete' || launched
        ? 'incomplete'
        : 'not attempted'
  const total = Math.max(items, scos.length, 1)
  const single = total === 1 ? scos[0] : undefined
  const done = scos.filter((s) => s.completion === 'completed' || s.success === 'passed').length
  const progressPercent =
    completion === 'completed'
      ? 100
      : r.progress_measure !== undefined
        ? Math.round(r.progress_measure * 1000) / 10
        : Math.round((done / total) * 1000) / 10
  return {
    completion,
    success: r.success_status,
    score: {
      // Weighted sums leave float noise (0.7000000000000001); scaled scores carry 7 decimals.
      scaled: r.score_scaled === undefined ? null : Math.round(r.score_scaled * 1e7) / 1e7,
      raw: single?.raw ?? null,
      min: single?.min ?? null,
      max: single?.max ?? null,
    },
    progressPercent,
    engine: { state: r.state, globals: r.globals },
  }
}

/** The session has finished: a launch no longer resumes it (a new attempt starts). */
export function isFinished(row: { completion_status: string; success_status: string }): boolean {
  return row.completion_status === 'completed' || row.success_status === 'passed'
}

/**
 * The SCORM 1.2 rule (and 2004's for content the engine cannot sequence): completed when every
 * launchable item is completed (or passed); passed when every item is and none failed; failed
 * when every item is finished (completed, passed or failed) and one failed — never because one
 * SCO of several said so. One SCO's score as is, several SCOs' scaled scores averaged.
 */
export function allScosRollup(items: number, scos: readonly ScoStatus[]): SessionRollup {
  const total = Math.max(items, scos.length, 1)
  const completed = scos.filter(done).length
  const attempted = scos.some((s) => s.completion !== 'not attempted')
  const allDone = completed >= total
  const completion: Completion = allDone ? 'completed' : attempted ? 'incomplete' : 'not attempted'
  const failed = scos.filter((s) => s.success === 'failed').length
  const finished = scos.filter((s) => done(s) || s.success === 'failed').length
  const success: Success =
    failed > 0
      ? finished >= total
        ? 'failed'
        : 'unknown'
      : allDone && scos.some((s) => s.success === 'passed')
        ? 'passed'
        : 'unknown'
  const scored = scos.filter((s) => s.scaled !== null || s.raw !== null)
  let score: SessionRollup['score'] = { scaled: null, raw: null, min: null, max: null }
  if (scored.length === 1 && scored[0]) {
    const only = scored[0]
    score = { scaled: only.scaled, raw: only.raw, min: only.min, max: only.max }
  } else if (scored.length > 1) {
    const scaled = scored.map((s) => s.scaled).filter((v): v is number => v !== null)
    score = {
      scaled: scaled.length
        ? Math.round((scaled.reduce((a, b) => a + b, 0) / scaled.length) * 1e7) / 1e7
        : null,
      raw: null,
      min: null,
      max: null,
    }
  }
  const single = total === 1 ? scos[0] : undefined
  const progressPercent =
    completion === 'completed'
      ? 100
      : single?.progressMeasure != null
        ? Math.round(single.progressMeasure * 1000) / 10
        : Math.round((completed / total) * 1000) / 10
  return { completion, success, score, progressPercent }
}
