import { isObject, type JsonObject } from '../lrs/xapi-primitives.ts'
import { AU_VERBS, CATEGORY, EXT, type LaunchMode, LMS_VERBS, VERB } from './cmi5.vocabulary.ts'
import type { AuProgress } from './move-on.ts'

/** What the rules know of the launch whose credential sent a statement. */
export interface LaunchFacts {
  actor: JsonObject
  registration: string
  activityId: string
  sessionId: string
  masteryScore: number | null
  launchMode: LaunchMode
  status: 'launched' | 'initialized' | 'terminated' | 'abandoned'
  /** Whether the AU has asked for its learner preferences (§11.0.0.0-3). */
  preferencesRead: boolean
  /** Defined verbs this session already stored. */
  sessionVerbs: readonly string[]
  /** What the AU reported earlier in the registration. */
  progress: AuProgress
}

/** Why a statement breaks a cmi5 rule (the spec's answer is 403), or null when it is allowed. */
export type RuleVerdict = string | null

function categories(context: JsonObject): string[] {
  const ca = context.contextActivities
  const list = isObject(ca) ? ca.category : undefined
  const items = Array.isArray(list) ? list : isObject(list) ? [list] : []
  return items.filter(isObject).map((a) => String(a.id))
}

function sameAgent(a: JsonObject, b: JsonObject): boolean {
  if ('mbox' in a || 'mbox_sha1sum' in a || 'openid' in a) return false
  const x = a.account
  const y = b.account
  return isObject(x) && isObject(y) && x.homePage === y.homePage && x.name === y.name
}

function isUtc(timestamp: unknown): boolean {
  return typeof timestamp === 'string' && /(Z|[+-]00:?00)$/i.test(timestamp)
}

/** §9.5: result rules of the defined verbs; the score's raw needs min and max (§9.5.1). */
function resultRule(verb: string, result: JsonObject | undefined, facts: LaunchFacts): RuleVerdict {
  const score = isObject(result?.score) ? result.score : undefined
  if (score && 'raw' in score && (!('min' in score) || !('max' in score))) {
    return '9.5.1.0-3: a raw score needs min and max'
  }
  if (
    verb === VERB.terminated ||
    verb === VERB.completed ||
    verb === VERB.passed ||
    verb === VERB.failed
  ) {
    if (typeof result?.duration !== 'string') return '9.5.4.1: the statement needs result.duration'
  }
  if (verb === VERB.completed) {
    if (result?.completion !== true) return '9.5.3.0-1: completed needs result.completion true'
    if (result && 'success' in result) return '9.5.2.0-3: completed must not carry result.success'
    if (score) return '9.5.1.0-2: completed must not carry a score'
  }
  if (verb === VERB.passed || verb === VERB.failed) {
    const passed = verb === VERB.passed
    if (result?.success !== passed)
      return `9.5.2.0: ${passed ? 'passed' : 'failed'} needs result.success ${passed}`
    if (result && 'completion' in result)
      return '9.5.3.0-2: passed/failed must not carry result.completion'
    const scaled = typeof score?.scaled === 'number' ? score.scaled : null
    if (facts.masteryScore !== null && scaled !== null) {
      if (passed && scaled < facts.masteryScore) return '9.3.4.0-2: passed below the masteryScore'
      if (!passed && scaled >= facts.masteryScore)
        return '9.3.5.0-2: failed at or above the masteryScore'
    }
  }
  return null
}

/** §9.3: the order of defined statements within a session and a registration. */
function orderRule(verb: string, facts: LaunchFacts): RuleVerdict {
  if (LMS_VERBS.has(verb)) return '9.3: only the LMS issues this verb'
  if (verb === VERB.voided) return '6.3.0.0-1: an AU does not void statements'
  if (facts.status === 'launched' && verb !== VERB.initialized) {
    return '9.3.0.0-4: the first statement of a session is initialized'
  }
  if (verb === VERB.initialized && !facts.preferencesRead) {
    return '11.0.0.0-3: initialized comes after the learner preferences were read'
  }
  if (facts.status !== 'launched' && verb === VERB.initialized) {
    return '9.3.2.0-3: the session is already initialized'
  }
  if (facts.status === 'terminated' || facts.status === 'abandoned') {
    return '9.3.0.0-5: the session has ended'
  }
  const judging = verb === VERB.completed || verb === VERB.passed || verb === VERB.failed
  if (judging && facts.launchMode !== 'Normal') {
    return '10.2.2: no completed, passed or failed outside the Normal launch mode'
  }
  if (verb === VERB.completed && facts.progress.completed) return '9.3.0.0-2: already completed'
  if ((verb === VERB.passed || verb === VERB.failed) && facts.progress.passed) {
    return '9.3.0.0-8: already passed'
  }
  const judged = facts.sessionVerbs.some((v) => v === VERB.passed || v === VERB.failed)
  if ((verb === VERB.passed || verb === VERB.failed) && judged) {
    return '9.3.0.0-2: one passed or failed per session'
  }
  return null
}

/**
 * The LMS's checks of a statement an AU sends with its launch credential (cmi5 §9): who, which
 * registration and session, the defined verbs' order and results, categories and extensions.
 * Pure: `facts` is what the launch and registration are now.
 */
export function checkAuStatement(st: JsonObject, facts: LaunchFacts, method: string): RuleVerdict {
  if (method === 'POST' && typeof st.id !== 'string') return '9.1.0.0-1: the statement needs an id'
  if (!('timestamp' in st)) return '9.7.0.0-1: the statement needs a timestamp'
  if (!isUtc(st.timestamp)) return '9.7.0.0-2: the timestamp must be in UTC'
  const actor = isObject(st.actor) ? st.actor : {}
  if (actor.objectType !== undefined && actor.objectType !== 'Agent') {
    return '9.2.0.0-2: the actor is an Agent'
  }
  if (!sameAgent(actor, facts.actor)) return '9.2.0.0-3: the actor is the launch actor'
  const verb = isObject(st.verb) ? String(st.verb.id) : ''
  const context = isObject(st.context) ? st.context : null
  if (!context) return '9.6.0.0-1: the statement needs a context'
  if (String(context.registration ?? '').toLowerCase() !== facts.registration) {
    return '9.6.1.0-1: the registration is the launch registration'
  }
  const extensions = isObject(context.extensions) ? context.extensions : {}
  if (extensions[EXT.sessionId] !== facts.sessionId)
    return '9.6.3.1-4: the sessionid is the launch session'
  const ordered = orderRule(verb, facts)
  if (ordered) return ordered
  const moveOn = categories(context).includes(CATEGORY.moveOn)
  const judging = verb === VERB.completed || verb === VERB.passed || verb === VERB.failed
  if (judging && !moveOn) return '9.6.2.2-1: completed, passed and failed carry the moveon category'
  if (!judging && moveOn)
    return '9.6.2.2-2: only completed, passed and failed carry the moveon category'
  if (!AU_VERBS.has(verb)) return null
  const object = isObject(st.object) ? st.object : {}
  if (object.id !== facts.activityId) return '8.1.5.0-6: the object is the launch activityId'
  if ((verb === VERB.passed || verb === VERB.failed) && facts.masteryScore !== null) {
    if (extensions[EXT.masteryScore] !== facts.masteryScore) {
      return '9.6.3.2-2: passed and failed carry the masteryscore extension of the launch'
    }
  }
  return resultRule(verb, isObject(st.result) ? st.result : undefined, facts)
}

/** The progress a stored defined statement adds to its AU. */
export function progressAfter(progress: AuProgress, st: JsonObject): AuProgress {
  const verb = isObject(st.verb) ? String(st.verb.id) : ''
  const result = isObject(st.result) ? st.result : {}
  const s = isObject(result.score) ? result.score : null
  const num = (v: unknown) => (typeof v === 'number' ? v : null)
  const score = s
    ? { scaled: num(s.scaled), raw: num(s.raw), min: num(s.min), max: num(s.max) }
    : null
  switch (verb) {
    case VERB.completed:
      return { ...progress, completed: true }
    case VERB.passed:
      return { ...progress, passed: true, score: score ?? progress.score }
    case VERB.failed:
      return { ...progress, failed: true, score: score ?? progress.score }
    default:
      return progress
  }
}
