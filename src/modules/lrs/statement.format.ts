import { isObject, type Json, type JsonObject } from './xapi-primitives.ts'

export type StatementFormat = 'exact' | 'ids' | 'canonical'

const IFI_KEYS = ['mbox', 'mbox_sha1sum', 'openid', 'account']

function idsActor(value: Json | undefined): Json | undefined {
  if (!isObject(value)) return value
  const out: JsonObject = {}
  if ('objectType' in value) out.objectType = value.objectType
  for (const key of IFI_KEYS) if (key in value) out[key] = value[key]
  if (
    value.objectType === 'Group' &&
    Array.isArray(value.member) &&
    !IFI_KEYS.some((k) => k in value)
  ) {
    out.member = value.member.map(idsActor)
  }
  return out
}

function idsActivity(value: Json | undefined): Json | undefined {
  if (!isObject(value)) return value
  return { id: value.id }
}

function idsContext(context: JsonObject): JsonObject {
  const out: JsonObject = { ...context }
  if ('instructor' in out) out.instructor = idsActor(out.instructor)
  if ('team' in out) out.team = idsActor(out.team)
  if (isObject(out.contextActivities)) {
    const ca: JsonObject = {}
    for (const [k, v] of Object.entries(out.contextActivities)) {
      ca[k] = Array.isArray(v) ? v.map(idsActivity) : idsActivity(v)
    }
    out.contextActivities = ca
  }
  for (const [key, inner] of [
    ['contextAgents', 'agent'],
    ['contextGroups', 'group'],
  ] as const) {
    const list = out[key]
    if (Array.isArray(list)) {
      out[key] = list.map((item) =>
        isObject(item) ? { ...item, [inner]: idsActor(item[inner]) } : item,
      )
    }
  }
  return out
}

function idsStatement(statement: JsonObject): JsonObject {
  const out: JsonObject = { ...statement }
  out.actor = idsActor(statement.actor)
  if (isObject(statement.verb)) out.verb = { id: statement.verb.id }
  const object = statement.object
  if (isObject(object)) {
    const type = object.objectType ?? 'Activity'
    if (type === 'Activity') out.object = idsActivity(object)
    else if (type === 'Agent' || type === 'Group') out.object = idsActor(object)
    else if (type === 'SubStatement') out.object = idsStatement(object)
  }
  if ('authority' in out) out.authority = idsActor(out.authority)
  if (isObject(out.context)) out.context = idsContext(out.context)
  return out
}

/** The language a language map should show for an Accept-Language list (first match wins). */
function pickLanguage(map: JsonObject, accepted: string[]): JsonObject {
  const keys = Object.keys(map)
  if (keys.length <= 1) return map
  for (const want of accepted) {
    if (want === '*') break
    const exact = keys.find((k) => k.toLowerCase() === want)
    const prefix = exact ?? keys.find((k) => k.toLowerCase().split('-')[0] === want.split('-')[0])
    if (prefix) return { [prefix]: map[prefix] }
  }
  const fallback = keys.find((k) => k.toLowerCase().startsWith('en')) ?? keys[0] ?? ''
  return { [fallback]: map[fallback] }
}

const LANGUAGE_MAP_KEYS = new Set(['display', 'name', 'description'])

function canonicalise(value: Json | undefined, accepted: string[], key = ''): Json | undefined {
  if (Array.isArray(value)) return value.map((v) => canonicalise(v, accepted))
  if (!isObject(value)) return value
  if (LANGUAGE_MAP_KEYS.has(key) && Object.values(value).every((v) => typeof v === 'string')) {
    return pickLanguage(value, accepted)
  }
  const out: JsonObject = {}
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === 'extensions' ? v : canonicalise(v, accepted, k)
  }
  return out
}

/** Accept-Language as lower-case tags, best first. */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return []
  return header
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';')
      const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find(Boolean)
      return { tag: (tag ?? '').trim().toLowerCase(), q: q ? Number(q) : 1 }
    })
    .filter((l) => l.tag && l.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((l) => l.tag)
}

/** A stored statement in the requested format (xAPI "format" parameter). */
export function formatStatement(
  statement: JsonObject,
  format: StatementFormat,
  languages: string[],
): JsonObject {
  if (format === 'ids') return idsStatement(statement)
  if (format === 'canonical') return canonicalise(statement, languages) as JsonObject
  return statement
}
