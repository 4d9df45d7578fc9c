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

/**
 * The session's status from its SCOs, until a sequencing engine's rollup replaces it: completed
 * when every launchable item is completed; failed if any SCO failed, passed if some passed and
 * none failed; one SCO's score as is, several SCOs' scaled scores averaged.
 */
export function rollup(items: number, scos: ScoStatus[]): SessionRollup {
  const total = Math.max(items, scos.length, 1)
  const completed = scos.filter((s) => s.completion === 'completed').length
  const attempted = scos.some((s) => s.completion !== 'not attempted')
  const completion: Completion =
    completed >= total ? 'completed' : attempted ? 'incomplete' : 'not attempted'
  const success: Success = scos.some((s) => s.success === 'failed')
    ? 'failed'
    : scos.some((s) => s.success === 'passed')
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
