import type { Executor } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import type { StoredManifest } from '../packages/package-ingest.ts'
import { playedOrganization } from '../sessions/course-items.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import * as repo from './shared-stores.repository.ts'

/**
 * SCORM 2004 shared data (adl.data): buckets named by the manifest's adlcp:map targetID, which
 * every SCO mapping the same id reads at launch and may write. They are the learner's across
 * all courses (adlcp:sharedDataGlobalToSystem, default true), or this attempt's only.
 */
export function sharedDataScope(manifest: StoredManifest, session: SessionsTable): string {
  return playedOrganization(manifest)?.sharedDataGlobalToSystem === false
    ? `session:${session.id}`
    : `learner:${session.learner_id}`
}

/** The stored value of each bucket that has one. */
export async function readSharedData(
  db: Executor,
  session: SessionsTable,
  scope: string,
  targetIds: string[],
): Promise<Map<string, string>> {
  return repo.findSharedData(db, scopeOfSession(session), scope, targetIds)
}

const STORE_ELEMENT = /^adl\.data\.(\d+)\.store$/

/**
 * Writes the buckets a commit stored into: `accepted` are the values the data model took
 * (write permission already checked), `values` the SCO's full record (for each index's id).
 */
export async function writeSharedData(
  db: Executor,
  session: SessionsTable,
  scope: string,
  accepted: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>>,
  at: string,
): Promise<void> {
  for (const { targetId, store } of sharedDataWrites(accepted, values)) {
    const key = { bucketScope: scope, targetId }
    await repo.upsertSharedData(db, scopeOfSession(session), key, store, at)
  }
}

/** The buckets `writeSharedData` writes, and what into each. */
export function sharedDataWrites(
  accepted: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>>,
): Array<{ targetId: string; store: string }> {
  const writes: Array<{ targetId: string; store: string }> = []
  for (const [element, store] of Object.entries(accepted)) {
    const index = STORE_ELEMENT.exec(element)?.[1]
    const targetId = index === undefined ? undefined : values[`adl.data.${index}.id`]
    if (targetId !== undefined) writes.push({ targetId, store })
  }
  return writes
}
