import { isObject, type JsonObject } from './xapi-primitives.ts'

/** contextActivities values are stored as arrays, whatever form they arrived in. */
function normaliseContext(context: JsonObject): JsonObject {
  if (!isObject(context.contextActivities)) return context
  const activities: JsonObject = {}
  for (const [key, value] of Object.entries(context.contextActivities)) {
    activities[key] = Array.isArray(value) ? value : [value ?? null]
  }
  return { ...context, contextActivities: activities }
}

function normaliseBody(statement: JsonObject): JsonObject {
  const out: JsonObject = { ...statement }
  if (isObject(out.context)) out.context = normaliseContext(out.context)
  if (isObject(out.object) && out.object.objectType === 'SubStatement') {
    out.object = normaliseBody(out.object)
  }
  return out
}

/**
 * The statement as the LRS stores it: lower-case id, `timestamp` defaulting to `stored`, the
 * caller's authority, a version, and contextActivities as arrays. Returns a new object.
 */
export function normaliseStatement(
  statement: JsonObject,
  set: { id: string; stored: string; authority: JsonObject; version: string },
): JsonObject {
  return {
    ...normaliseBody(statement),
    id: set.id.toLowerCase(),
    timestamp: statement.timestamp ?? set.stored,
    stored: set.stored,
    authority: set.authority,
    version: statement.version ?? set.version,
  }
}
