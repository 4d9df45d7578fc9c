import { type CompiledQuery, type SqlBool, sql } from 'kysely'
import { directSqliteConnection } from '../../infra/db/node-sqlite-dialect.ts'
import type { Executor } from '../../infra/db/schema.ts'
import type { LrsStatementsTable } from '../../infra/db/tables/lrs.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { type IndexEntry, kindsMatching } from './statement.indexer.ts'

export type StatementRow = Pick<
  LrsStatementsTable,
  'id' | 'stored' | 'voided' | 'voids' | 'statement'
>

/*
 * Inside a node:sqlite transaction (every statement write), the write path runs one prepared
 * single-row statement per row straight on the connection (directSqliteConnection) instead of
 * one multi-row statement per batch: SQLite runs a reused one-row INSERT or point SELECT for
 * less than a multi-row VALUES list of the same rows costs it (a program as long as the list,
 * ~1 500 parameters bound), and no query is built. PostgreSQL keeps the multi-row statements:
 * there each statement is a round trip.
 */
const FIND_ONE = `select id, stored, voided, voids, statement from lrs_statements
  where tenant_id = ? and mode = ? and id = ?`
const INSERT_ONE = `insert into lrs_statements
  (tenant_id, mode, id, stored, timestamp, verb_id, voided, voids, credential_id, statement)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
const INSERT_INDEX_ONE = `insert into lrs_statement_index
  (tenant_id, mode, kind, value, stored, statement_id) values (?, ?, ?, ?, ?, ?)
  on conflict do nothing`
const FIND_ACTIVITY_ONE = `select definition from lrs_activities
  where tenant_id = ? and mode = ? and activity_id = ?`

export async function findStatements(
  db: Executor,
  scope: TenantScope,
  ids: string[],
): Promise<StatementRow[]> {
  if (ids.length === 0) return []
  const direct = directSqliteConnection(db)
  if (direct) {
    const find = direct.prepare(FIND_ONE)
    const found: StatementRow[] = []
    for (const id of ids) {
      const [row] = find.all([scope.tenantId, scope.mode, id]) as StatementRow[]
      if (row) found.push(row)
    }
    return found
  }
  return db
    .selectFrom('lrs_statements')
    .select(['id', 'stored', 'voided', 'voids', 'statement'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', 'in', ids)
    .execute()
}

/** Rows per multi-row INSERT: well under both dialects' bound parameter limits. */
const CHUNK = 200

/**
 * Stores statement rows: on node:sqlite one prepared INSERT per row (see {@link INSERT_ONE}),
 * elsewhere one multi-row INSERT per {@link CHUNK} (raw, as index rows).
 */
export async function insertStatements(
  db: Executor,
  scope: TenantScope,
  rows: Array<Omit<LrsStatementsTable, 'tenant_id' | 'mode'>>,
): Promise<void> {
  const direct = directSqliteConnection(db)
  if (direct) {
    const insert = direct.prepare(INSERT_ONE)
    for (const r of rows) {
      insert.run([
        scope.tenantId,
        scope.mode,
        r.id,
        r.stored,
        r.timestamp,
        r.verb_id,
        r.voided,
        r.voids,
        r.credential_id,
        r.statement,
      ])
    }
    return
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    const values = rows
      .slice(i, i + CHUNK)
      .map(
        (r) =>
          sql`(${r.id}, ${r.stored}, ${r.timestamp}, ${r.verb_id}, cast(${r.voided} as integer), ${r.voids}, ${r.credential_id}, ${r.statement})`,
      )
    await sql`insert into lrs_statements
        (tenant_id, mode, id, stored, timestamp, verb_id, voided, voids, credential_id, statement)
      select ${scope.tenantId}, ${scope.mode}, v.column1, v.column2, v.column3, v.column4,
        v.column5, v.column6, v.column7, v.column8
      from (values ${sql.join(values)}) as v`.execute(db)
  }
}

/**
 * Stores index rows (all with one `stored`); a row already present is kept. On node:sqlite one
 * prepared INSERT per row; elsewhere raw SQL over a VALUES list: the query builder's per-value
 * bookkeeping for ~350 rows a batch cost more than the database took to insert them, and the
 * scope and `stored` are bound once, not per row.
 */
export async function insertIndexRows(
  db: Executor,
  scope: TenantScope,
  stored: string,
  rows: Array<IndexEntry & { statement_id: string }>,
): Promise<void> {
  const direct = directSqliteConnection(db)
  if (direct) {
    const insert = direct.prepare(INSERT_INDEX_ONE)
    for (const e of rows) {
      insert.run([scope.tenantId, scope.mode, e.kind, e.value, stored, e.statement_id])
    }
    return
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    const values = rows
      .slice(i, i + CHUNK)
      .map((e) => sql`(${e.kind}, ${e.value}, ${e.statement_id})`)
    await sql`insert into lrs_statement_index (tenant_id, mode, kind, value, stored, statement_id)
      select ${scope.tenantId}, ${scope.mode}, v.column1, v.column2, ${stored}, v.column3
      from (values ${sql.join(values)}) as v
      where true
      on conflict do nothing`.execute(db)
  }
}

/** The index entries of a stored statement (a StatementRef inherits its target's). */
export async function indexEntriesOf(
  db: Executor,
  scope: TenantScope,
  statementId: string,
): Promise<IndexEntry[]> {
  const rows = await db
    .selectFrom('lrs_statement_index')
    .select(['kind', 'value'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('statement_id', '=', statementId)
    .execute()
  return rows as IndexEntry[]
}

export async function markVoided(db: Executor, scope: TenantScope, id: string): Promise<void> {
  await db
    .updateTable('lrs_statements')
    .set({ voided: 1 })
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', '=', id)
    .execute()
}

export interface StatementQuery {
  filters: IndexEntry[]
  /** Exclusive lower bound on `stored`. */
  since?: string
  /** Inclusive upper bound on `stored`. */
  until?: string
  ascending: boolean
  /** Where the previous page ended. */
  after?: { stored: string; id: string }
  limit: number
}

/**
 * One page of unvoided statements. With filters, the first one drives the seek on
 * `lrs_statement_index` (its primary key starts with kind and value, then stored), the others
 * are EXISTS probes on the same key; without, it seeks `lrs_statements_scope_stored`. A
 * related_* filter reads two kinds of rows ({@link kindsMatching}): as the first filter, each
 * kind is its own ordered seek of at most `limit` rows and the two are merged, so neither
 * dialect has to sort every match.
 */
export async function queryStatements(
  db: Executor,
  scope: TenantScope,
  q: StatementQuery,
): Promise<StatementRow[]> {
  return (await db.executeQuery(statementsPageQuery(db, scope, q))).rows
}

/** The SQL {@link queryStatements} runs (for EXPLAIN in bench/lrs.bench.ts). */
export function statementsPageQuery(
  db: Executor,
  scope: TenantScope,
  q: StatementQuery,
): CompiledQuery<StatementRow> {
  const [first, ...rest] = q.filters
  const dir = q.ascending ? 'asc' : 'desc'
  if (!first) {
    let query = db
      .selectFrom('lrs_statements as s')
      .select(['s.id', 's.stored', 's.voided', 's.voids', 's.statement'])
      .where('s.tenant_id', '=', scope.tenantId)
      .where('s.mode', '=', scope.mode)
      .where('s.voided', '=', 0)
    if (q.since) query = query.where('s.stored', '>', q.since)
    if (q.until) query = query.where('s.stored', '<=', q.until)
    if (q.after) {
      const cmp = q.ascending ? sql`>` : sql`<`
      query = query.where(sql<SqlBool>`(s.stored, s.id) ${cmp} (${q.after.stored}, ${q.after.id})`)
    }
    return query.orderBy('s.stored', dir).orderBy('s.id', dir).limit(q.limit).compile()
  }
  const seeks = kindsMatching(first.kind).map((kind) => seek(db, scope, q, kind, first.value, rest))
  const [a, b] = seeks
  if (!a || !b) return (a as NonNullable<typeof a>).compile()
  const order = q.ascending ? sql`asc` : sql`desc`
  return sql<StatementRow>`select * from (${a}) as a union all
    select * from (${b}) as b
    order by stored ${order}, id ${order} limit ${q.limit}`.compile(db)
}

/** An ordered seek of one kind of index row, probing the other filters. */
function seek(
  db: Executor,
  scope: TenantScope,
  q: StatementQuery,
  kind: IndexEntry['kind'],
  value: string,
  rest: IndexEntry[],
) {
  const dir = q.ascending ? 'asc' : 'desc'
  let query = db
    .selectFrom('lrs_statement_index as i')
    .innerJoin('lrs_statements as s', (join) =>
      join
        .onRef('s.tenant_id', '=', 'i.tenant_id')
        .onRef('s.mode', '=', 'i.mode')
        .onRef('s.id', '=', 'i.statement_id'),
    )
    .select(['s.id', 's.stored', 's.voided', 's.voids', 's.statement'])
    .where('i.tenant_id', '=', scope.tenantId)
    .where('i.mode', '=', scope.mode)
    .where('i.kind', '=', kind)
    .where('i.value', '=', value)
    .where('s.voided', '=', 0)
  for (const f of rest) {
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('lrs_statement_index as j')
          .select(sql`1`.as('one'))
          .where('j.tenant_id', '=', scope.tenantId)
          .where('j.mode', '=', scope.mode)
          .where('j.kind', 'in', kindsMatching(f.kind))
          .where('j.value', '=', f.value)
          .whereRef('j.stored', '=', 'i.stored')
          .whereRef('j.statement_id', '=', 'i.statement_id'),
      ),
    )
  }
  if (q.since) query = query.where('i.stored', '>', q.since)
  if (q.until) query = query.where('i.stored', '<=', q.until)
  if (q.after) {
    const cmp = q.ascending ? sql`>` : sql`<`
    query = query.where(
      sql<SqlBool>`(i.stored, i.statement_id) ${cmp} (${q.after.stored}, ${q.after.id})`,
    )
  }
  return query.orderBy('i.stored', dir).orderBy('i.statement_id', dir).limit(q.limit)
}

export async function insertAttachment(
  db: Executor,
  scope: TenantScope,
  row: { sha2: string; content_type: string; content: string; created_at: string },
): Promise<void> {
  await db
    .insertInto('lrs_attachments')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .onConflict((oc) => oc.doNothing())
    .execute()
}

export async function findAttachments(
  db: Executor,
  scope: TenantScope,
  hashes: string[],
): Promise<Array<{ sha2: string; content_type: string; content: string }>> {
  if (hashes.length === 0) return []
  return db
    .selectFrom('lrs_attachments')
    .select(['sha2', 'content_type', 'content'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('sha2', 'in', hashes)
    .execute()
}

export async function findActivity(
  db: Executor,
  scope: TenantScope,
  activityId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('lrs_activities')
    .select('definition')
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('activity_id', '=', activityId)
    .executeTakeFirst()
  return row?.definition
}

/** The stored definitions (JSON text) of these activities, by id. */
export async function findActivities(
  db: Executor,
  scope: TenantScope,
  activityIds: string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  const direct = directSqliteConnection(db)
  if (direct) {
    const find = direct.prepare(FIND_ACTIVITY_ONE)
    for (const id of activityIds) {
      const [row] = find.all([scope.tenantId, scope.mode, id]) as Array<{ definition: string }>
      if (row) found.set(id, row.definition)
    }
    return found
  }
  for (let i = 0; i < activityIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('lrs_activities')
      .select(['activity_id', 'definition'])
      .where('tenant_id', '=', scope.tenantId)
      .where('mode', '=', scope.mode)
      .where('activity_id', 'in', activityIds.slice(i, i + CHUNK))
      .execute()
    for (const row of rows) found.set(row.activity_id, row.definition)
  }
  return found
}

/** Inserts or replaces activity definitions (each id at most once). */
export async function upsertActivities(
  db: Executor,
  scope: TenantScope,
  rows: Array<{ activity_id: string; definition: string }>,
  at: string,
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('lrs_activities')
      .values(
        rows.slice(i, i + CHUNK).map((row) => ({
          ...row,
          tenant_id: scope.tenantId,
          mode: scope.mode,
          updated_at: at,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'mode', 'activity_id']).doUpdateSet((eb) => ({
          definition: eb.ref('excluded.definition'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute()
  }
}
