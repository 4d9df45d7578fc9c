/**
 * What the wrapper writes into the client LMS for a bridged state, per SCORM version. Pure, so
 * the mapping is unit-tested without a browser.
 */
import type { BridgeState, LmsVersion } from './protocol.ts'

export type LmsWrite = readonly [element: string, value: string]

/** SCORM 1.2 CMIString4096 / 2004 SPM of suspend_data; longer values are not sent. */
const SUSPEND_LIMIT: Record<LmsVersion, number> = { '1.2': 4096, '2004': 64000 }
const LOCATION_LIMIT: Record<LmsVersion, number> = { '1.2': 255, '2004': 1000 }

function decimal(n: number): string {
  return String(Math.round(n * 10000) / 10000)
}

/** CMITimespan (1.2): HHHH:MM:SS.SS. */
export function timespan12(seconds: number): string {
  const centis = Math.max(0, Math.round(seconds * 100))
  const h = Math.min(9999, Math.floor(centis / 360000))
  const m = Math.floor((centis % 360000) / 6000)
  const s = (centis % 6000) / 100
  const pad = (n: number, w: number) => String(n).padStart(w, '0')
  return `${pad(h, 4)}:${pad(m, 2)}:${s.toFixed(2).padStart(5, '0')}`
}

/** ISO 8601 duration (2004): PT#H#M#S. */
export function duration2004(seconds: number): string {
  const centis = Math.max(0, Math.round(seconds * 100))
  const h = Math.floor(centis / 360000)
  const m = Math.floor((centis % 360000) / 6000)
  const s = (centis % 6000) / 100
  return `PT${h}H${m}M${s}S`
}

/**
 * The wrapper keeps its learner key (docs/dispatch.md) at the start of the SCO's own
 * `cmi.suspend_data`, which every LMS stores for the SCO and gives back on the next launch of
 * the attempt: `cpk1.{key}|{the course's suspend data}`. The course's data is only a copy there
 * (our server keeps the real one), so when both do not fit, the key wins.
 */
const KEY_MARK = 'cpk1.'
const KEY_PATTERN = /^cpk1\.([A-Za-z0-9_-]{16,128})\|/

/** The learner key stored in `cmi.suspend_data`, or '' when there is none. */
export function readLearnerKey(suspendData: string): string {
  return KEY_PATTERN.exec(suspendData)?.[1] ?? ''
}

/** `cmi.suspend_data` holding the key and as much of the course's data as the limit allows. */
export function suspendDataWithKey(version: LmsVersion, key: string, courseData: string): string {
  const head = `${KEY_MARK}${key}|`
  const all = `${head}${courseData}`
  return all.length <= SUSPEND_LIMIT[version] ? all : head
}

const inRange = (n: number | null, lo: number, hi: number) => n === null || (n >= lo && n <= hi)

/**
 * 1.2 scores are 0..100 (raw, min, max). A score on another scale is sent as a percentage from
 * the scaled score when there is one, and left out otherwise.
 */
function score12(score: BridgeState['score']): LmsWrite[] {
  const { raw, min, max, scaled } = score
  if (raw !== null && inRange(raw, 0, 100) && inRange(min, 0, 100) && inRange(max, 0, 100)) {
    return [
      ['cmi.core.score.raw', decimal(raw)],
      ...(min !== null ? [['cmi.core.score.min', decimal(min)] as const] : []),
      ...(max !== null ? [['cmi.core.score.max', decimal(max)] as const] : []),
    ]
  }
  if (scaled === null) return []
  return [
    ['cmi.core.score.raw', decimal(Math.max(0, Math.min(1, scaled)) * 100)],
    ['cmi.core.score.min', '0'],
    ['cmi.core.score.max', '100'],
  ]
}

function lessonStatus(state: BridgeState): string | null {
  if (state.success === 'passed' || state.success === 'failed') return state.success
  if (state.completion === 'completed' || state.completion === 'incomplete') return state.completion
  return null
}

/**
 * The writes for one state, in an order LMSs accept (status before exit, time last). With a
 * learner key, suspend data always carries it.
 */
export function lmsWrites(version: LmsVersion, state: BridgeState, learnerKey = ''): LmsWrite[] {
  const out: LmsWrite[] = []
  const { location } = state
  const suspendData =
    learnerKey && state.suspendData !== null
      ? suspendDataWithKey(version, learnerKey, state.suspendData)
      : state.suspendData
  if (version === '1.2') {
    const status = lessonStatus(state)
    if (status) out.push(['cmi.core.lesson_status', status])
    out.push(...score12(state.score))
    if (location !== null && location.length <= LOCATION_LIMIT['1.2']) {
      out.push(['cmi.core.lesson_location', location])
    }
    if (suspendData !== null && suspendData.length <= SUSPEND_LIMIT['1.2']) {
      out.push(['cmi.suspend_data', suspendData])
    }
    if (state.exit) out.push(['cmi.core.exit', state.exit === 'suspend' ? 'suspend' : ''])
    if (state.sessionSeconds !== null) {
      out.push(['cmi.core.session_time', timespan12(state.sessionSeconds)])
    }
    return out
  }
  if (state.completion !== 'unknown') out.push(['cmi.completion_status', state.completion])
  if (state.success !== 'unknown') out.push(['cmi.success_status', state.success])
  const { scaled, raw, min, max } = state.score
  if (scaled !== null) out.push(['cmi.score.scaled', decimal(Math.max(-1, Math.min(1, scaled)))])
  if (raw !== null) out.push(['cmi.score.raw', decimal(raw)])
  if (min !== null) out.push(['cmi.score.min', decimal(min)])
  if (max !== null) out.push(['cmi.score.max', decimal(max)])
  if (state.progress !== null) {
    out.push(['cmi.progress_measure', decimal(Math.max(0, Math.min(1, state.progress)))])
  }
  if (location !== null && location.length <= LOCATION_LIMIT['2004']) {
    out.push(['cmi.location', location])
  }
  if (suspendData !== null && suspendData.length <= SUSPEND_LIMIT['2004']) {
    out.push(['cmi.suspend_data', suspendData])
  }
  if (state.exit) out.push(['cmi.exit', state.exit])
  if (state.sessionSeconds !== null) {
    out.push(['cmi.session_time', duration2004(state.sessionSeconds)])
  }
  return out
}

/** The elements the wrapper reads at start. */
export const LEARNER_ELEMENTS: Record<
  LmsVersion,
  { id: string; name: string; status: string; suspendData: string }
> = {
  '1.2': {
    id: 'cmi.core.student_id',
    name: 'cmi.core.student_name',
    status: 'cmi.core.lesson_status',
    suspendData: 'cmi.suspend_data',
  },
  '2004': {
    id: 'cmi.learner_id',
    name: 'cmi.learner_name',
    status: 'cmi.completion_status',
    suspendData: 'cmi.suspend_data',
  },
}
