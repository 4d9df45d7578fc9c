import { agentKey } from './agent.validator.ts'
import { isObject, type JsonObject } from './xapi-primitives.ts'

/** One filterable value of a statement (a row of `lrs_statement_index`). */
export interface IndexEntry {
  kind: 'verb' | 'agent' | 'agent_rel' | 'activity' | 'activity_rel' | 'registration'
  value: string
}

function agentsOf(value: unknown): string[] {
  if (!isObject(value)) return []
  const key = agentKey(value)
  return key ? [key] : []
}

function contextActivityIds(context: JsonObject | undefined): string[] {
  if (!context || !isObject(context.contextActivities)) return []
  const ids: string[] = []
  for (const list of Object.values(context.contextActivities)) {
    for (const a of Array.isArray(list) ? list : [list]) {
      if (isObject(a) && typeof a.id === 'string') ids.push(a.id)
    }
  }
  return ids
}

function contextAgents(context: JsonObject | undefined): string[] {
  if (!context) return []
  const keys = [...agentsOf(context.instructor), ...agentsOf(context.team)]
  for (const list of [context.contextAgents, context.contextGroups]) {
    if (!Array.isArray(list)) continue
    for (const item of list) {
      if (isObject(item)) keys.push(...agentsOf(item.agent), ...agentsOf(item.group))
    }
  }
  return keys
}

function isActivity(object: JsonObject): boolean {
  return !('objectType' in object) || object.objectType === 'Activity'
}

/** Agents and activities anywhere in a statement or sub-statement (the related_* filters). */
function related(statement: JsonObject, into: { agents: string[]; activities: string[] }): void {
  const object = isObject(statement.object) ? statement.object : {}
  const context = isObject(statement.context) ? statement.context : undefined
  into.agents.push(...agentsOf(statement.actor), ...agentsOf(statement.authority))
  into.agents.push(...contextAgents(context))
  into.activities.push(...contextActivityIds(context))
  if (isActivity(object) && typeof object.id === 'string') into.activities.push(object.id)
  if (object.objectType === 'Agent' || object.objectType === 'Group') {
    into.agents.push(...agentsOf(object))
  }
  if (object.objectType === 'SubStatement') related(object, into)
}

/** The kinds of rows a filter matches: a related_* filter also matches the direct rows. */
export function kindsMatching(kind: IndexEntry['kind']): IndexEntry['kind'][] {
  if (kind === 'agent_rel') return ['agent', 'agent_rel']
  if (kind === 'activity_rel') return ['activity', 'activity_rel']
  return [kind]
}

/**
 * Drops repeated entries, and `agent_rel` / `activity_rel` entries whose value is already a
 * direct `agent` / `activity` entry: the related_* filters read both kinds
 * ({@link kindsMatching}), so the actor and the object activity, present in every statement,
 * are written once instead of twice (each is a row at a random place in the index).
 */
export function compactEntries(entries: IndexEntry[]): IndexEntry[] {
  if (entries.length > SMALL) return compactLarge(entries)
  // A statement has a handful of entries: scanning them costs less than keying a Set with
  // kind + value (a string of a URL's length built and hashed per entry).
  const out: IndexEntry[] = []
  for (const e of entries) {
    if (has(out, e.kind, e.value)) continue
    if (e.kind === 'agent_rel' && has(entries, 'agent', e.value)) continue
    if (e.kind === 'activity_rel' && has(entries, 'activity', e.value)) continue
    out.push(e)
  }
  return out
}

/** Entries above which {@link compactEntries} keys Sets instead of scanning. */
const SMALL = 24

function has(entries: IndexEntry[], kind: IndexEntry['kind'], value: string): boolean {
  for (const e of entries) if (e.kind === kind && e.value === value) return true
  return false
}

function compactLarge(entries: IndexEntry[]): IndexEntry[] {
  const direct = new Set<string>()
  for (const e of entries) {
    if (e.kind === 'agent' || e.kind === 'activity') direct.add(`${e.kind}\n${e.value}`)
  }
  const seen = new Set<string>()
  return entries.filter((e) => {
    const key = `${e.kind}\n${e.value}`
    if (seen.has(key)) return false
    seen.add(key)
    if (e.kind === 'agent_rel') return !direct.has(`agent\n${e.value}`)
    if (e.kind === 'activity_rel') return !direct.has(`activity\n${e.value}`)
    return true
  })
}

/**
 * The index rows of a statement: what the agent, verb, activity, registration and related_*
 * filters of the statement query match (xAPI "Filter conditions"), compacted
 * ({@link compactEntries}).
 */
export function indexEntries(statement: JsonObject): IndexEntry[] {
  const entries: IndexEntry[] = []
  const object = isObject(statement.object) ? statement.object : {}
  const verb = isObject(statement.verb) ? statement.verb : {}
  if (typeof verb.id === 'string') entries.push({ kind: 'verb', value: verb.id })
  const direct = [...agentsOf(statement.actor)]
  if (object.objectType === 'Agent' || object.objectType === 'Group')
    direct.push(...agentsOf(object))
  for (const value of direct) entries.push({ kind: 'agent', value })
  if (isActivity(object) && typeof object.id === 'string') {
    entries.push({ kind: 'activity', value: object.id })
  }
  const context = isObject(statement.context) ? statement.context : undefined
  if (context && typeof context.registration === 'string') {
    entries.push({ kind: 'registration', value: context.registration.toLowerCase() })
  }
  const rel = { agents: [] as string[], activities: [] as string[] }
  related(statement, rel)
  for (const value of rel.agents) entries.push({ kind: 'agent_rel', value })
  for (const value of rel.activities) entries.push({ kind: 'activity_rel', value })
  return compactEntries(entries)
}
