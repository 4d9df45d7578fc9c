/**
 * The postMessage protocol between the wrapper SCO (on the client LMS's origin), the dispatch
 * frame page and the player (both on our content origin). docs/dispatch.md has the sequence.
 * Every receiver checks `event.origin` and `event.source`; every sender names its target origin
 * (only `ready`, which carries nothing, goes to '*': the frame does not know the LMS yet).
 */

export const CHANNEL = 'courseport.dispatch'
export const PROTOCOL_VERSION = 1

/** The fragment parameter through which the frame page hands the LMS origin to the player. */
export const BRIDGE_HASH_PARAM = 'cp-dispatch-parent'

export type LmsVersion = '1.2' | '2004'

/** What the client LMS should record, normalised across SCORM versions. */
export interface BridgeState {
  completion: 'completed' | 'incomplete' | 'not attempted' | 'unknown'
  success: 'passed' | 'failed' | 'unknown'
  score: { scaled: number | null; raw: number | null; min: number | null; max: number | null }
  /** 0..1; null when unknown. */
  progress: number | null
  /** Time the hosted SCOs reported for this launch, in seconds; null when none did. */
  sessionSeconds: number | null
  location: string | null
  suspendData: string | null
  /** How the hosted content left: 'suspend' keeps the LMS attempt open. */
  exit: 'suspend' | 'normal' | null
  /** The course ended for this launch: the wrapper finishes its LMS session. */
  ended: boolean
}

export type DispatchMessageBody =
  | { kind: 'ready' }
  /** `key`: the learner key the wrapper keeps in the LMS ('' on a first launch). */
  | { kind: 'hello'; learner: { id: string; name: string }; lms: LmsVersion; key?: string }
  /** `key`: a new registration's key, for the wrapper to keep; absent when resumed. */
  | { kind: 'launching'; key?: string }
  | { kind: 'refused'; reason: string; message: string }
  | { kind: 'state'; state: BridgeState }

export type DispatchMessage = DispatchMessageBody & { channel: typeof CHANNEL; v: number }

export function message(body: DispatchMessageBody): DispatchMessage {
  return { channel: CHANNEL, v: PROTOCOL_VERSION, ...body }
}

const KINDS = new Set(['ready', 'hello', 'launching', 'refused', 'state'])

/** Whether `data` is one of our messages (structurally; origins are checked by the caller). */
export function readMessage(data: unknown): DispatchMessage | null {
  if (typeof data !== 'object' || data === null) return null
  const d = data as Record<string, unknown>
  if (d.channel !== CHANNEL || d.v !== PROTOCOL_VERSION || !KINDS.has(String(d.kind))) return null
  if (d.kind === 'hello') {
    const learner = d.learner as Record<string, unknown> | null
    if (typeof learner?.id !== 'string' || typeof learner.name !== 'string') return null
    if (d.lms !== '1.2' && d.lms !== '2004') return null
  }
  if ((d.kind === 'hello' || d.kind === 'launching') && !optionalText(d.key, 256)) return null
  if (d.kind === 'state' && (typeof d.state !== 'object' || d.state === null)) return null
  return data as DispatchMessage
}

function optionalText(value: unknown, max: number): boolean {
  return value === undefined || (typeof value === 'string' && value.length <= max)
}

/** `value` if it is exactly a serialised http(s) origin (what `event.origin` looks like). */
export function exactOrigin(value: string | null | undefined): string | null {
  if (!value) return null
  try {
    const url = new URL(value)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
    return url.origin === value ? value : null
  } catch {
    return null
  }
}

const COMPLETION = new Set(['completed', 'incomplete', 'not attempted', 'unknown'])
const SUCCESS = new Set(['passed', 'failed', 'unknown'])

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

/** A state as sent by the bridge, with every field checked; null when it is not one. */
export function readState(raw: unknown): BridgeState | null {
  if (typeof raw !== 'object' || raw === null) return null
  const s = raw as Record<string, unknown>
  const score = (typeof s.score === 'object' && s.score !== null ? s.score : {}) as Record<
    string,
    unknown
  >
  if (!COMPLETION.has(String(s.completion)) || !SUCCESS.has(String(s.success))) return null
  return {
    completion: s.completion as BridgeState['completion'],
    success: s.success as BridgeState['success'],
    score: {
      scaled: num(score.scaled),
      raw: num(score.raw),
      min: num(score.min),
      max: num(score.max),
    },
    progress: num(s.progress),
    sessionSeconds: num(s.sessionSeconds),
    location: str(s.location),
    suspendData: str(s.suspendData),
    exit: s.exit === 'suspend' || s.exit === 'normal' ? s.exit : null,
    ended: s.ended === true,
  }
}
