import { type SqlBool, sql } from 'kysely'
import type { Executor } from '../../infra/db/schema.ts'
import type { LrsStatementsTable } from '../../infra/db/tables/lrs.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import type { IndexEntry } from './statement.indexer.ts'

export type StatementRow = Pick<
  LrsStatementsTable,
  'id' | 'stored' | 'voided' | 'voids' | 'statement'
>

export async function findStatements(
  db: Executor,
  scope: TenantScope,
  ids: string[],
): Promise<StatementRow[]> {
  if (ids.length === 0) return []
  return db
    .selectFrom('lrs_statements')
    .select(['id', 'stored', 'voided', 'voids', 'statement'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('id', 'in', ids)
    .execute()
}

export async function insertStatement(
  db: Executor,
  scope: TenantScope,
  row: Omit<LrsStatementsTable, 'tenant_id' | 'mode'>,
  entries: IndexEntry[],
): Promise<void> {
  await db
    .insertInto('lrs_statements')
    .values({ ...row, tenant_id: scope.tenantId, mode: scope.mode })
    .execute()
  if (entries.length === 0) return
  await db
    .insertInto('lrs_statement_index')
    .values(
      entries.map((e) => ({
        tenant_id: scope.tenantId,
        mode: scope.mode,
        kind: e.kind,
        value: e.value,
        stored: row.stored,
        statement_id: row.id,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute()
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
 * are EXISTS probes on the same key; without, it seeks `lrs_statements_scope_stored`.
 */
export async function queryStatements(
  db: Executor,
  scope: TenantScope,
  q: StatementQuery,
): Promise<StatementRow[]> {
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
    return query.orderBy('s.stored', dir).orderBy('s.id', dir).limit(q.limit).execute()
  }
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
    .where('i.kind', '=', first.kind)
    .where('i.value', '=', first.value)
    .where('s.voided', '=', 0)
  for (const f of rest) {
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('lrs_statement_index as j')
          .select(sql`1`.as('one'))
          .where('j.tenant_id', '=', scope.tenantId)
          .where('j.mode', '=', scope.mode)
          .where('j.kind', '=', f.kind)
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
  return query.orderBy('i.stored', dir).orderBy('i.statement_id', dir).limit(q.limit).execute()
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

export async function upsertActivity(
  db: Executor,
  scope: TenantScope,
  activityId: string,
  definition: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('lrs_activities')
    .values({
      tenant_id: scope.tenantId,
      mode: scope.mode,
      activity_id: activityId,
      definition,
      updated_at: at,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'mode', 'activity_id']).doUpdateSet({ definition, updated_at: at }),
    )
    .execute()
}
