import type { Executor } from '../../infra/db/schema.ts'
import type { Clock } from '../../shared/clock.ts'

/**
 * What the SCORM → xAPI statement job reads and where it keeps its place. The job runs for every
 * tenant at once (one pass over the outbox and the launches, in order), so these queries are
 * deliberately cross-tenant; every row they return carries its session's tenant and mode, and
 * the statements are stored under exactly that scope.
 */

/** Session audit events after `afterSeq` of the given types, oldest first, with their session. */
export async function sessionEventsAfter(
  db: Executor,
  afterSeq: number,
  types: readonly string[],
  limit: number,
) {
  return db
    .selectFrom('audit_events as e')
    .innerJoin('sessions as s', 's.id', 'e.entity_id')
    .select(['e.seq', 'e.id', 'e.type', 'e.data', 'e.occurred_at', 's.tenant_id', 's.mode'])
    .select(['s.id as session_id', 's.learner_id', 's.package_id', 's.scorm_version'])
    .where('e.seq', '>', afterSeq)
    .where('e.type', 'in', [...types])
    .orderBy('e.seq')
    .limit(limit)
    .execute()
}

/**
 * SCO launches changed after the (updated_at, id) position and no later than `until`, in that
 * order, with their session: a row-value seek on `sco_deliveries (updated_at, id)`.
 */
export async function deliveriesAfter(
  db: Executor,
  after: { at: string; id: string } | null,
  until: string,
  limit: number,
) {
  let query = db
    .selectFrom('sco_deliveries as d')
    .innerJoin('sessions as s', 's.id', 'd.session_id')
    .select(['d.id', 'd.item_id', 'd.launch_data', 'd.created_at', 'd.ended_at', 'd.updated_at'])
    .select(['s.id as session_id', 's.tenant_id', 's.mode', 's.learner_id', 's.package_id'])
    .select('s.scorm_version')
    .where('d.updated_at', '<=', until)
  if (after) {
    query = query.where((eb) =>
      eb(eb.refTuple('d.updated_at', 'd.id'), '>', eb.tuple(after.at, after.id)),
    )
  }
  return query.orderBy('d.updated_at').orderBy('d.id').limit(limit).execute()
}

/** Of `ids`, the tenants that keep SCORM statements on (the default; `scormStatements: false`). */
export async function tenantsWithScormStatements(
  db: Executor,
  ids: string[],
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('tenants')
    .select(['id', 'settings'])
    .where('id', 'in', ids)
    .execute()
  const on = new Set<string>()
  for (const row of rows) {
    const settings = JSON.parse(row.settings) as { scormStatements?: boolean }
    if (settings.scormStatements !== false) on.add(row.id)
  }
  return on
}

/** The job's stored position under `name` (the jobs' own table, not a tenant's), or null. */
export async function readCursor(db: Executor, name: string): Promise<string | null> {
  const row = await db
    .selectFrom('lrs_cursors')
    .select('position')
    .where('name', '=', name)
    .executeTakeFirst()
  return row?.position ?? null
}

/** Stores the job's position under `name`. */
export async function writeCursor(
  db: Executor,
  name: string,
  position: string,
  clock: Clock,
): Promise<void> {
  const updated_at = clock.now().toISOString()
  await db
    .insertInto('lrs_cursors')
    .values({ name, position, updated_at })
    .onConflict((oc) => oc.column('name').doUpdateSet({ position, updated_at }))
    .execute()
}
