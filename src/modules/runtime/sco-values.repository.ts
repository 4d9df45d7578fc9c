/**
 * A SCO's record (`sco_values`): one row per element. The table has no tenant columns: a session
 * id is unique across tenants, so a row keyed by a session id is the tenant's when its session
 * is. Its statements carry an `exists` on the session row with the scope — a primary-key probe of
 * a row the caller has just read with the same scope in the same transaction, so it costs next to
 * nothing on the commit path.
 */
import { PostgresAdapter, sql } from 'kysely'
import { preparedQuery } from '../../infra/db/prepared-query.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { ScoValuesTable } from '../../infra/db/tables/sessions.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

interface Scoped {
  tenantId: string
  mode: TenantScope['mode']
}
export type ScoValueRow = Pick<ScoValuesTable, 'element' | 'value' | 'delivery_id'>

const scoValuesQuery = preparedQuery((db, p: Scoped & { sessionId: string; itemId: string }) =>
  db
    .selectFrom('sco_values')
    .select(['element', 'value', 'delivery_id'])
    .where('session_id', '=', p.sessionId)
    .where('item_id', '=', p.itemId)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('sessions')
          .select('sessions.id')
          .where('sessions.id', '=', p.sessionId)
          .where('sessions.tenant_id', '=', p.tenantId)
          .where('sessions.mode', '=', p.mode),
      ),
    ),
)

/** One SCO's record, element by element (nothing when the session is not the scope's). */
export async function findScoValues(
  db: Executor,
  scope: TenantScope,
  sessionId: string,
  itemId: string,
): Promise<ScoValueRow[]> {
  return scoValuesQuery.all(db, { tenantId: scope.tenantId, mode: scope.mode, sessionId, itemId })
}

/** The records of every SCO of these sessions (for reading sessions); others' ids read nothing. */
export async function findSessionValues(
  db: Executor,
  scope: TenantScope,
  sessionIds: readonly string[],
): Promise<ScoValuesTable[]> {
  if (sessionIds.length === 0) return []
  return db
    .selectFrom('sco_values')
    .selectAll()
    .where('session_id', 'in', (eb) =>
      eb
        .selectFrom('sessions')
        .select('id')
        .where('tenant_id', '=', scope.tenantId)
        .where('mode', '=', scope.mode)
        .where('id', 'in', sessionIds),
    )
    .orderBy('session_id')
    .orderBy('item_id')
    .execute()
}

interface ValuesWrite {
  tenant_id: string
  mode: TenantScope['mode']
  session_id: string
  item_id: string
  delivery_id: string | null
  /** JSON object: element → value. */
  values: string
}

/**
 * Writes elements of a SCO's record in one fixed statement, however many there are: the JSON
 * object is expanded by the database (`json_each` / `json_each_text`), so the statement is
 * prepared once and a commit costs what it changed. `replace`: commits overwrite; otherwise
 * only missing elements are added (the LMS's launch values never replace recorded ones).
 */
function valuesUpsert(replace: boolean) {
  return preparedQuery((db, p: ValuesWrite) => {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter
    // The scope: written only when the session is the tenant's (see the file's comment).
    const scoped = sql`where exists (select 1 from sessions where id = ${p.session_id}
      and tenant_id = ${p.tenant_id} and mode = ${p.mode})`
    const rows = postgres
      ? sql`select cast(${p.session_id} as text), cast(${p.item_id} as text), key, value,
          cast(${p.delivery_id} as text) from json_each_text(cast(${p.values} as json)) ${scoped}`
      : sql`select ${p.session_id}, ${p.item_id}, key, value, ${p.delivery_id}
          from json_each(${p.values}) ${scoped}`
    const conflict = replace
      ? sql`do update set value = excluded.value, delivery_id = excluded.delivery_id`
      : sql`do nothing`
    const query = sql`insert into sco_values (session_id, item_id, element, value, delivery_id)
      ${rows} on conflict (session_id, item_id, element) ${conflict}`
    return { compile: () => query.compile(db) }
  })
}

const replaceValues = valuesUpsert(true)
const addMissingValues = valuesUpsert(false)

/**
 * SQLite: a commit changes an element or two (its location, its suspend data). Up to this many
 * are written as a VALUES list, one prepared statement per count, the same rows as `valuesUpsert`
 * writes: expanding JSON costs SQLite a parse and a table-valued function, more than the insert.
 */
const MAX_LISTED = 4

type ListedWrite = Omit<ValuesWrite, 'values'> & Record<`${'e' | 'v'}${number}`, string>

function listedUpsert(count: number) {
  return preparedQuery((db, p: ListedWrite) => {
    const pairs = Array.from({ length: count }, (_, i) => sql`(${p[`e${i}`]}, ${p[`v${i}`]})`)
    const query = sql`insert into sco_values (session_id, item_id, element, value, delivery_id)
      select ${p.session_id}, ${p.item_id}, column1, column2, ${p.delivery_id}
      from (values ${sql.join(pairs)})
      where exists (select 1 from sessions where id = ${p.session_id}
        and tenant_id = ${p.tenant_id} and mode = ${p.mode})
      on conflict (session_id, item_id, element)
      do update set value = excluded.value, delivery_id = excluded.delivery_id`
    return { compile: () => query.compile(db) }
  })
}

const listedUpserts = Array.from({ length: MAX_LISTED }, (_, i) => listedUpsert(i + 1))

/** Records a commit's changed elements as written by `deliveryId` (the scope's session only). */
export async function writeScoValues(
  db: Executor,
  scope: TenantScope,
  key: { sessionId: string; itemId: string; deliveryId: string | null },
  values: Readonly<Record<string, string>>,
  mode: 'replace' | 'add-missing' = 'replace',
): Promise<void> {
  const scoped = {
    tenant_id: scope.tenantId,
    mode: scope.mode,
    session_id: key.sessionId,
    item_id: key.itemId,
    delivery_id: key.deliveryId,
  }
  if (mode === 'replace' && !(db.getExecutor().adapter instanceof PostgresAdapter)) {
    const listed = listedWrite(scoped, values)
    if (listed) {
      await listed.query.run(db, listed.params)
      return
    }
  }
  const params = { ...scoped, values: JSON.stringify(values) }
  await (mode === 'replace' ? replaceValues : addMissingValues).run(db, params)
}

/** A replacing write of at most MAX_LISTED elements as a VALUES list; undefined beyond. */
function listedWrite(
  scoped: Omit<ValuesWrite, 'values'>,
  values: Readonly<Record<string, string>>,
) {
  const params: Record<string, string | null> = { ...scoped }
  let count = 0
  for (const element in values) {
    if (count === MAX_LISTED) return undefined
    params[`e${count}`] = element
    params[`v${count}`] = values[element] ?? null
    count++
  }
  const query = listedUpserts[count - 1]
  return query && { query, params: params as ListedWrite }
}
