import { createHash } from 'node:crypto'
import type { JsonObject } from './xapi-primitives.ts'

/** The ADL verbs the SCORM statements use. */
export type ScormVerb =
  | 'launched'
  | 'initialized'
  | 'resumed'
  | 'completed'
  | 'passed'
  | 'failed'
  | 'suspended'
  | 'terminated'

/** The namespace of Courseport's derived statement ids (a random UUID fixed forever). */
const NAMESPACE = '5b0f5e2c-6a0e-4d5f-9a57-2f1d3c8e4b71'

/** RFC 9562 UUID v5 (SHA-1 of namespace and name): the same inputs give the same id. */
export function uuidV5(name: string, namespace = NAMESPACE): string {
  const ns = Buffer.from(namespace.replaceAll('-', ''), 'hex')
  const bytes = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16)
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** What one derived statement is about. */
export interface ScormFact {
  /** Names the fact uniquely (a delivery or audit event id): with the verb, the statement id. */
  sourceId: string
  verb: ScormVerb
  at: string
  sessionId: string
  learnerId: string
  packageId: string
  /** The SCO's item identifier; null: the statement is about the course. */
  itemId: string | null
  score?: { scaled: number | null; raw: number | null; min: number | null; max: number | null }
  durationSeconds?: number
}

/** Seconds as an ISO 8601 duration with hundredths (`PT1H2M3.45S`). */
export function isoDuration(seconds: number): string {
  const s = Math.max(0, seconds)
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const rest = Math.round((s % 60) * 100) / 100
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${rest}S`
}

/** Only what xAPI accepts: scaled in [-1, 1], min ≤ max, raw within them. */
function scoreOf(score: ScormFact['score']): JsonObject | undefined {
  if (!score) return undefined
  const out: JsonObject = {}
  const num = (v: number | null) => (typeof v === 'number' && Number.isFinite(v) ? v : null)
  const scaled = num(score.scaled)
  let min = num(score.min)
  let max = num(score.max)
  const raw = num(score.raw)
  if (min !== null && max !== null && min > max) {
    min = null
    max = null
  }
  if (scaled !== null && scaled >= -1 && scaled <= 1) out.scaled = scaled
  if (raw !== null && (min === null || raw >= min) && (max === null || raw <= max)) out.raw = raw
  if (min !== null) out.min = min
  if (max !== null) out.max = max
  return Object.keys(out).length ? out : undefined
}

function resultOf(fact: ScormFact): JsonObject | undefined {
  const result: JsonObject = {}
  if (fact.verb === 'completed') result.completion = true
  if (fact.verb === 'passed') result.success = true
  if (fact.verb === 'failed') result.success = false
  const score = fact.verb === 'passed' || fact.verb === 'failed' || fact.verb === 'completed'
  const s = score ? scoreOf(fact.score) : undefined
  if (s) result.score = s
  if (fact.durationSeconds !== undefined) result.duration = isoDuration(fact.durationSeconds)
  return Object.keys(result).length ? result : undefined
}

/**
 * The statement for one fact. Everything in it is derived from the fact, so building it again
 * gives the same statement: the LRS stores a re-sent one once (same id, same content).
 */
export function scormStatement(fact: ScormFact, publicUrl: string): JsonObject {
  const base = publicUrl.replace(/\/+$/, '')
  const course: JsonObject = {
    objectType: 'Activity',
    id: `${base}/xapi/activities/scorm/${encodeURIComponent(fact.packageId)}`,
    definition: { type: 'http://adlnet.gov/expapi/activities/course' },
  }
  const object: JsonObject =
    fact.itemId === null
      ? course
      : {
          objectType: 'Activity',
          id: `${course.id}/${encodeURIComponent(fact.itemId)}`,
          definition: { type: 'http://adlnet.gov/expapi/activities/lesson' },
        }
  const context: JsonObject = {
    registration: uuidV5(`session:${fact.sessionId}`),
    platform: 'Courseport',
    extensions: { [`${base}/xapi/extensions/session-id`]: fact.sessionId },
  }
  if (fact.itemId !== null) context.contextActivities = { parent: [course] }
  const statement: JsonObject = {
    id: uuidV5(`${fact.sourceId}:${fact.verb}`),
    actor: { objectType: 'Agent', account: { homePage: base, name: fact.learnerId } },
    verb: {
      id: `http://adlnet.gov/expapi/verbs/${fact.verb}`,
      display: { 'en-US': fact.verb },
    },
    object,
    context,
    timestamp: fact.at,
  }
  const result = resultOf(fact)
  if (result) statement.result = result
  return statement
}
