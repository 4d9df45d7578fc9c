import type { Executor } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/** What a cmi5 or Tin Can session's statements amount to (the sessions list and detail). */
export interface StatementSummary {
  /** The session's latest registration. */
  registration: string
  statement_count: number
  first_statement_at: string | null
  last_statement_at: string | null
  /** The verb id of the newest statement. */
  last_verb: string | null
}

/**
 * Statement summaries of xAPI and cmi5 sessions, by session id (sessions without a registration
 * are absent). Each registration is one seek on the LRS's registration index.
 */
export async function statementSummaries(
  db: Executor,
  scope: TenantScope,
  sessionIds: readonly string[],
): Promise<Map<string, StatementSummary>> {
  const out = new Map<string, StatementSummary>()
  if (sessionIds.length === 0) return out
  const registrations = await db
    .selectFrom('cmi5_registrations')
    .select(['id', 'session_id', 'created_at'])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .where('session_id', 'in', [...sessionIds])
    .orderBy('created_at')
    .execute()
  for (const reg of registrations) {
    const index = db
      .selectFrom('lrs_statement_index as i')
      .where('i.tenant_id', '=', scope.tenantId)
      .where('i.mode', '=', scope.mode)
      .where('i.kind', '=', 'registration')
      .where('i.value', '=', reg.id)
    const totals = await index
      .select((eb) => [
        eb.fn.countAll<string | number>().as('count'),
        eb.fn.min('i.stored').as('first'),
        eb.fn.max('i.stored').as('last'),
      ])
      .executeTakeFirst()
    const newest = await index
      .innerJoin('lrs_statements as s', (join) =>
        join
          .onRef('s.tenant_id', '=', 'i.tenant_id')
          .onRef('s.mode', '=', 'i.mode')
          .onRef('s.id', '=', 'i.statement_id'),
      )
      .select('s.verb_id')
      .orderBy('i.stored', 'desc')
      .orderBy('i.statement_id', 'desc')
      .limit(1)
      .executeTakeFirst()
    const before = out.get(reg.session_id)
    const count = Number(totals?.count ?? 0)
    out.set(reg.session_id, {
      registration: reg.id,
      statement_count: (before?.statement_count ?? 0) + count,
      first_statement_at: before?.first_statement_at ?? totals?.first ?? null,
      last_statement_at: totals?.last ?? before?.last_statement_at ?? null,
      last_verb: newest?.verb_id ?? before?.last_verb ?? null,
    })
  }
  return out
}
