import {
  checkActivity,
  checkExtensions,
  checkIri,
  checkLanguageMap,
  checkString,
} from './activity.validator.ts'
import { checkActor, checkAgent, checkGroup } from './agent.validator.ts'
import {
  invalid,
  isDuration,
  isLanguageTag,
  isObject,
  isUuid,
  type JsonObject,
  onlyKeys,
  parseTimestamp,
  type XapiVersion,
} from './xapi-primitives.ts'

export const VOIDED_VERB = 'http://adlnet.gov/expapi/verbs/voided'
export const SIGNATURE_USAGE = 'http://adlnet.gov/expapi/attachments/signature'

const STATEMENT_KEYS = [
  'id',
  'actor',
  'verb',
  'object',
  'result',
  'context',
  'timestamp',
  'stored',
  'authority',
  'version',
  'attachments',
]
const SUB_STATEMENT_KEYS = [
  'objectType',
  'actor',
  'verb',
  'object',
  'result',
  'context',
  'timestamp',
  'attachments',
]
function checkVerb(value: unknown, path: string): void {
  if (!isObject(value)) invalid(path, 'must be a Verb object')
  onlyKeys(value, ['id', 'display'], path)
  checkIri(value.id, `${path}.id`)
  if ('display' in value) checkLanguageMap(value.display, `${path}.display`)
}

function checkStatementRef(value: unknown, path: string): void {
  if (!isObject(value)) invalid(path, 'must be a StatementRef')
  onlyKeys(value, ['objectType', 'id'], path)
  if (value.objectType !== 'StatementRef') invalid(`${path}.objectType`, 'must be "StatementRef"')
  if (!isUuid(value.id)) invalid(`${path}.id`, 'must be a UUID')
}

function checkObject(value: unknown, path: string, version: XapiVersion, nested: boolean): void {
  if (!isObject(value)) invalid(path, 'must be an object')
  const type = 'objectType' in value ? value.objectType : 'Activity'
  if (type === 'Activity') checkActivity(value, path)
  else if (type === 'Agent') checkAgent(value, path)
  else if (type === 'Group') checkGroup(value, path)
  else if (type === 'StatementRef') checkStatementRef(value, path)
  else if (type === 'SubStatement' && !nested) checkSubStatement(value, path, version)
  else invalid(`${path}.objectType`, `"${String(type)}" is not allowed here`)
}

function checkScore(value: unknown, path: string): void {
  if (!isObject(value)) invalid(path, 'must be an object')
  onlyKeys(value, ['scaled', 'raw', 'min', 'max'], path)
  for (const key of ['scaled', 'raw', 'min', 'max']) {
    if (key in value && typeof value[key] !== 'number')
      invalid(`${path}.${key}`, 'must be a number')
  }
  const { scaled, raw, min, max } = value as Record<string, number | undefined>
  if (scaled !== undefined && (scaled < -1 || scaled > 1)) {
    invalid(`${path}.scaled`, 'must be between -1 and 1')
  }
  if (min !== undefined && max !== undefined && min > max) invalid(path, 'min exceeds max')
  if (raw !== undefined && min !== undefined && raw < min) invalid(`${path}.raw`, 'is below min')
  if (raw !== undefined && max !== undefined && raw > max) invalid(`${path}.raw`, 'is above max')
}

function checkResult(value: unknown, path: string): void {
  if (!isObject(value)) invalid(path, 'must be an object')
  onlyKeys(value, ['score', 'success', 'completion', 'response', 'duration', 'extensions'], path)
  if ('score' in value) checkScore(value.score, `${path}.score`)
  for (const key of ['success', 'completion']) {
    if (key in value && typeof value[key] !== 'boolean')
      invalid(`${path}.${key}`, 'must be a boolean')
  }
  if ('response' in value) checkString(value.response, `${path}.response`)
  if ('duration' in value && !isDuration(value.duration)) {
    invalid(`${path}.duration`, 'must be an ISO 8601 duration')
  }
  if ('extensions' in value) checkExtensions(value.extensions, `${path}.extensions`)
}

function checkContextActivities(value: unknown, path: string): void {
  if (!isObject(value)) invalid(path, 'must be an object')
  onlyKeys(value, ['parent', 'grouping', 'category', 'other'], path)
  for (const [key, list] of Object.entries(value)) {
    if (!Array.isArray(list)) {
      checkActivity(list, `${path}.${key}`)
      continue
    }
    for (const [i, a] of list.entries()) checkActivity(a, `${path}.${key}[${i}]`)
  }
}

function checkRelevantTypes(value: JsonObject, path: string): void {
  if (!('relevantTypes' in value)) return
  const types = value.relevantTypes
  if (!Array.isArray(types) || types.length === 0) {
    invalid(`${path}.relevantTypes`, 'must be a non-empty array of IRIs')
  }
  for (const [i, t] of types.entries()) checkIri(t, `${path}.relevantTypes[${i}]`)
}

function checkContextAgents(value: unknown, path: string, group: boolean): void {
  if (!Array.isArray(value)) invalid(path, 'must be an array')
  value.forEach((item, i) => {
    const at = `${path}[${i}]`
    if (!isObject(item)) invalid(at, 'must be an object')
    const key = group ? 'group' : 'agent'
    const objectType = group ? 'contextGroup' : 'contextAgent'
    onlyKeys(item, ['objectType', key, 'relevantTypes'], at)
    if (item.objectType !== objectType) invalid(`${at}.objectType`, `must be "${objectType}"`)
    if (group) checkGroup(item.group, `${at}.group`)
    else checkAgent(item.agent, `${at}.agent`)
    checkRelevantTypes(item, at)
  })
}

function checkContext(
  value: unknown,
  path: string,
  object: JsonObject,
  version: XapiVersion,
): void {
  if (!isObject(value)) invalid(path, 'must be an object')
  const keys = [
    'registration',
    'instructor',
    'team',
    'contextActivities',
    'revision',
    'platform',
    'language',
    'statement',
    'extensions',
  ]
  if (version === '2.0.0') keys.push('contextAgents', 'contextGroups')
  onlyKeys(value, keys, path)
  if ('registration' in value && !isUuid(value.registration)) {
    invalid(`${path}.registration`, 'must be a UUID')
  }
  if ('instructor' in value) checkActor(value.instructor, `${path}.instructor`)
  if ('team' in value) checkGroup(value.team, `${path}.team`)
  if ('contextActivities' in value) {
    checkContextActivities(value.contextActivities, `${path}.contextActivities`)
  }
  const isActivity = !('objectType' in object) || object.objectType === 'Activity'
  for (const key of ['revision', 'platform']) {
    if (!(key in value)) continue
    checkString(value[key], `${path}.${key}`)
    if (!isActivity) invalid(`${path}.${key}`, 'is only allowed when the object is an Activity')
  }
  if ('language' in value && !isLanguageTag(value.language)) {
    invalid(`${path}.language`, 'must be an RFC 5646 language tag')
  }
  if ('statement' in value) checkStatementRef(value.statement, `${path}.statement`)
  if ('extensions' in value) checkExtensions(value.extensions, `${path}.extensions`)
  if ('contextAgents' in value)
    checkContextAgents(value.contextAgents, `${path}.contextAgents`, false)
  if ('contextGroups' in value)
    checkContextAgents(value.contextGroups, `${path}.contextGroups`, true)
}

function checkAttachments(value: unknown, path: string): void {
  if (!Array.isArray(value)) invalid(path, 'must be an array')
  value.forEach((a, i) => {
    const at = `${path}[${i}]`
    if (!isObject(a)) invalid(at, 'must be an object')
    onlyKeys(
      a,
      ['usageType', 'display', 'description', 'contentType', 'length', 'sha2', 'fileUrl'],
      at,
    )
    checkIri(a.usageType, `${at}.usageType`)
    checkLanguageMap(a.display, `${at}.display`)
    if ('description' in a) checkLanguageMap(a.description, `${at}.description`)
    if (typeof a.contentType !== 'string' || !/^[\w.+-]+\/[\w.+-]+/.test(a.contentType)) {
      invalid(`${at}.contentType`, 'must be an Internet Media Type')
    }
    if (!Number.isInteger(a.length) || (a.length as number) < 0) {
      invalid(`${at}.length`, 'must be a non-negative integer')
    }
    if (typeof a.sha2 !== 'string' || !/^[0-9a-f]{56,128}$/i.test(a.sha2)) {
      invalid(`${at}.sha2`, 'must be a SHA-2 hex digest')
    }
    if ('fileUrl' in a) checkIri(a.fileUrl, `${at}.fileUrl`)
  })
}

function checkTimestamp(value: unknown, path: string, version: XapiVersion): void {
  if (!parseTimestamp(value, version === '2.0.0')) invalid(path, 'must be an ISO 8601 timestamp')
}

/** The parts shared by statements and sub-statements. */
function checkBody(value: JsonObject, path: string, version: XapiVersion, nested: boolean): void {
  checkActor(value.actor, `${path}.actor`)
  checkVerb(value.verb, `${path}.verb`)
  checkObject(value.object, `${path}.object`, version, nested)
  const object = value.object as JsonObject
  if ('result' in value) checkResult(value.result, `${path}.result`)
  if ('context' in value) checkContext(value.context, `${path}.context`, object, version)
  if ('timestamp' in value) checkTimestamp(value.timestamp, `${path}.timestamp`, version)
  if ('attachments' in value) checkAttachments(value.attachments, `${path}.attachments`)
  const verb = value.verb as JsonObject
  if (verb.id === VOIDED_VERB && object.objectType !== 'StatementRef') {
    invalid(`${path}.object`, 'a voiding statement must target a StatementRef')
  }
}

/** An authority is an Agent, or an anonymous Group of exactly two Agents (OAuth consumer + user). */
function checkAuthority(value: unknown, path: string): void {
  checkActor(value, path)
  if (value.objectType !== 'Group') return
  const members = Array.isArray(value.member) ? value.member : []
  if (['mbox', 'mbox_sha1sum', 'openid', 'account'].some((k) => k in value)) {
    invalid(path, 'a Group authority must be anonymous')
  }
  if (members.length !== 2) invalid(path, 'a Group authority has exactly two members')
}

function checkSubStatement(value: JsonObject, path: string, version: XapiVersion): void {
  onlyKeys(value, SUB_STATEMENT_KEYS, path)
  checkBody(value, path, version, true)
}

/**
 * Checks a statement against the MUSTs of the given xAPI version; throws a 400 AppError naming
 * the first violation. It never changes its input.
 */
export function validateStatement(value: unknown, version: XapiVersion, path = 'statement'): void {
  if (!isObject(value)) invalid(path, 'must be a JSON object')
  onlyKeys(value, STATEMENT_KEYS, path)
  if ('id' in value && !isUuid(value.id)) invalid(`${path}.id`, 'must be a UUID')
  checkBody(value, path, version, false)
  if ('stored' in value && !parseTimestamp(value.stored, false)) {
    invalid(`${path}.stored`, 'must be an ISO 8601 timestamp')
  }
  if ('authority' in value) checkAuthority(value.authority, `${path}.authority`)
  if ('version' in value) {
    const allowed = version === '2.0.0' ? /^(1\.0(\.\d+)?|2\.0(\.\d+)?)$/ : /^1\.0(\.\d+)?$/
    if (typeof value.version !== 'string' || !allowed.test(value.version)) {
      invalid(`${path}.version`, 'is not a supported xAPI version')
    }
  }
}
