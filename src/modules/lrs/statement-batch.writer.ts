import type { Executor } from '../../infra/db/schema.ts'
import type { LrsStatementsTable } from '../../infra/db/tables/lrs.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { compactEntries, type IndexEntry, indexEntries } from './statement.indexer.ts'
import * as repo from './statement.repository.ts'
import { VOIDED_VERB } from './statement.validator.ts'
import { isObject, type JsonObject } from './xapi-primitives.ts'

type Row = Omit<LrsStatementsTable, 'tenant_id' | 'mode'>

/** The newest definition wins per property; language maps and extensions merge key by key. */
export function mergeDefinitions(before: JsonObject, next: JsonObject): JsonObject {
  const out: JsonObject = { ...before, ...next }
  for (const key of ['name', 'description', 'extensions']) {
    const a = before[key]
    const b = next[key]
    if (isObject(a) && isObject(b)) out[key] = { ...a, ...b }
  }
  return out
}

/**
 * Writes new statements (none of whose ids is stored yet) in a few multi-row statements instead
 * of several per statement: their rows, their index rows, the activity definitions they carry.
 * Order within the batch is kept where it matters: a StatementRef (a voiding one included) sees
 * the statements stored before it, earlier ones of the same batch included, as if each had been
 * stored alone in turn.
 */
export async function writeStatements(
  trx: Executor,
  scope: TenantScope & { credentialId: string | null },
  statements: JsonObject[],
  stored: string,
): Promise<void> {
  const rows = new Map<string, Row>()
  const entriesOf = new Map<string, IndexEntry[]>()
  for (const statement of statements) {
    const id = String(statement.id)
    const object = statement.object as JsonObject
    const verbId = String((statement.verb as JsonObject).id)
    let entries = indexEntries(statement)
    let voids: string | null = null
    if (object.objectType === 'StatementRef') {
      const targetId = String(object.id).toLowerCase()
      const voiding = verbId === VOIDED_VERB
      const earlier = rows.get(targetId)
      if (earlier) {
        // Filters match a statement that refers to a matching one (xAPI "StatementRefs").
        entries = compactEntries([...entries, ...(entriesOf.get(targetId) ?? [])])
        if (voiding && !earlier.voids) earlier.voided = 1
      } else {
        const [target] = await repo.findStatements(trx, scope, [targetId])
        if (target) {
          entries = compactEntries([
            ...entries,
            ...(await repo.indexEntriesOf(trx, scope, targetId)),
          ])
          if (voiding && !target.voids) await repo.markVoided(trx, scope, targetId)
        }
      }
      if (voiding) voids = targetId
    }
    entriesOf.set(id, entries)
    rows.set(id, {
      id,
      stored,
      timestamp: String(statement.timestamp),
      verb_id: verbId,
      voided: 0,
      voids,
      credential_id: scope.credentialId,
      statement: JSON.stringify(statement),
    })
  }
  await repo.insertStatements(trx, scope, [...rows.values()])
  const indexRows: Array<IndexEntry & { statement_id: string }> = []
  for (const [id, entries] of entriesOf) {
    for (const e of entries) indexRows.push({ kind: e.kind, value: e.value, statement_id: id })
  }
  await repo.insertIndexRows(trx, scope, stored, indexRows)
  await recordActivities(trx, scope, statements, stored)
}

/**
 * Keeps the latest definition of each activity for the Activities resource: one read of the
 * definitions known, merged in statement order, and one upsert of those that changed (a course
 * re-sending the same definition writes nothing).
 */
async function recordActivities(
  trx: Executor,
  scope: TenantScope,
  statements: JsonObject[],
  at: string,
): Promise<void> {
  const sent: Array<[string, JsonObject]> = []
  for (const statement of statements) {
    const object = statement.object as JsonObject
    if (object.objectType !== undefined && object.objectType !== 'Activity') continue
    if (isObject(object.definition)) sent.push([String(object.id), object.definition])
  }
  if (sent.length === 0) return
  const known = await repo.findActivities(trx, scope, [...new Set(sent.map(([id]) => id))])
  // Courses re-send the definition they sent before: a definition whose text is the current one
  // merges into it unchanged (same keys, same order, same values), so it is neither parsed nor
  // merged; `merged` holds only the activities something changed.
  const merged = new Map<string, JsonObject>()
  for (const [id, definition] of sent) {
    let before = merged.get(id)
    if (!before) {
      const text = known.get(id)
      if (text !== undefined && text === JSON.stringify(definition)) continue
      before = text === undefined ? {} : (JSON.parse(text) as JsonObject)
    }
    merged.set(id, mergeDefinitions(before, definition))
  }
  const changed: Array<{ activity_id: string; definition: string }> = []
  for (const [id, definition] of merged) {
    const text = JSON.stringify(definition)
    if (known.get(id) !== text) changed.push({ activity_id: id, definition: text })
  }
  await repo.upsertActivities(trx, scope, changed, at)
}
