import type { JsonObject } from '../lrs/xapi-primitives.ts'
import type { Cmi5Au } from '../scorm/manifest/manifest.types.ts'
import { ACTIVITY_TYPE, CATEGORY, EXT, type LaunchMode, VERB } from './cmi5.vocabulary.ts'

/** What every LMS-issued statement of a registration shares. */
export interface StatementBase {
  actor: JsonObject
  registration: string
  sessionId: string
  timestamp: string
}

function verb(id: string, word: string): JsonObject {
  return { id, display: { 'en-US': word } }
}

function context(base: StatementBase, grouping: string, moveOn = false): JsonObject {
  const category = [{ id: CATEGORY.cmi5 }, ...(moveOn ? [{ id: CATEGORY.moveOn }] : [])]
  return {
    registration: base.registration,
    contextActivities: { category, grouping: [{ id: grouping }] },
    extensions: { [EXT.sessionId]: base.sessionId },
  }
}

/**
 * The context an AU starts its statements from (cmi5 §10.2.1): the AU's id from cmi5.xml in
 * `grouping`, the session id; the AU adds registration and categories.
 */
export function contextTemplate(au: Cmi5Au, sessionId: string): JsonObject {
  const extensions: JsonObject = { [EXT.sessionId]: sessionId }
  // passed and failed must carry it (§9.6.3.2): in the template, an AU copies it along.
  if (au.masteryScore !== null) extensions[EXT.masteryScore] = au.masteryScore
  return { contextActivities: { grouping: [{ id: au.id }] }, extensions }
}

/** cmi5 §9.3.1 and §9.6.3: `launched`, with the launch's mode, URL, moveOn and parameters. */
export function launchedStatement(
  base: StatementBase,
  au: Cmi5Au,
  activityId: string,
  launch: { mode: LaunchMode; url: string },
): JsonObject {
  const st = {
    id: crypto.randomUUID(),
    timestamp: base.timestamp,
    actor: base.actor,
    verb: verb(VERB.launched, 'launched'),
    object: { objectType: 'Activity', id: activityId },
    context: context(base, au.id),
  }
  const extensions = st.context.extensions as JsonObject
  extensions[EXT.launchMode] = launch.mode
  extensions[EXT.launchUrl] = launch.url
  extensions[EXT.moveOn] = au.moveOn
  if (au.launchParameters !== null) extensions[EXT.launchParameters] = au.launchParameters
  if (au.masteryScore !== null) extensions[EXT.masteryScore] = au.masteryScore
  return st
}

/** cmi5 §9.3.9: a block or the course is satisfied; `groupingId` is its id from cmi5.xml. */
export function satisfiedStatement(
  base: StatementBase,
  target: { activityId: string; groupingId: string; kind: 'block' | 'course' },
): JsonObject {
  return {
    id: crypto.randomUUID(),
    timestamp: base.timestamp,
    actor: base.actor,
    verb: verb(VERB.satisfied, 'satisfied'),
    object: {
      objectType: 'Activity',
      id: target.activityId,
      definition: { type: target.kind === 'block' ? ACTIVITY_TYPE.block : ACTIVITY_TYPE.course },
    },
    context: context(base, target.groupingId),
  }
}

/** cmi5 §9.3.6: the session ended without terminated; `duration` since the launch. */
export function abandonedStatement(
  base: StatementBase,
  au: Cmi5Au,
  activityId: string,
  duration: string,
): JsonObject {
  return {
    id: crypto.randomUUID(),
    timestamp: base.timestamp,
    actor: base.actor,
    verb: verb(VERB.abandoned, 'abandoned'),
    object: { objectType: 'Activity', id: activityId },
    result: { duration },
    context: context(base, au.id),
  }
}

/** cmi5 §9.3.7: the LMS waives an AU, with the reason in the result extension. */
export function waivedStatement(
  base: StatementBase,
  au: Cmi5Au,
  activityId: string,
  reason: string,
): JsonObject {
  return {
    id: crypto.randomUUID(),
    timestamp: base.timestamp,
    actor: base.actor,
    verb: verb(VERB.waived, 'waived'),
    object: { objectType: 'Activity', id: activityId },
    result: { success: true, completion: true, extensions: { [EXT.reason]: reason } },
    context: context(base, au.id, true),
  }
}

/** An ISO 8601 duration of whole and fractional seconds (`PT12.5S`). */
export function secondsDuration(ms: number): string {
  return `PT${Math.max(0, Math.round(ms / 10) / 100)}S`
}

/** Stable LMS activity ids of a package's AUs, blocks and course (cmi5 §8.1.5, §9.3.9). */
export function activityIds(publicUrl: string, packageId: string) {
  const base = `${publicUrl}/xapi/activities/courseport/${encodeURIComponent(packageId)}`
  return {
    au: (index: number) => `${base}/au/${index}`,
    block: (index: number) => `${base}/block/${index}`,
    course: `${base}/course`,
  }
}
