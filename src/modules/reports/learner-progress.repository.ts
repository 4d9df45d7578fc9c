import { type Kysely, sql } from 'kysely'
import type { Database } from '../../infra/db/schema.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'

/** Which sessions the report counts: started in [from, to), optionally of one package. */
export interface LearnerProgressFilter {
  package_id?: string
  /** Sessions started at or after this instant (ISO 8601). */
  from?: string
  /** Sessions started before this instant (ISO 8601). */
  to?: string
}

/**
 * The learner-progress report: one SQL aggregate, the same text for SQLite and PostgreSQL.
 *
 * The rows are found by seeking `sessions_scope_package` (tenant, mode, package, created_at)
 * when a package is named, else `sessions_scope_created` (tenant, mode, created_at); the
 * database aggregates them and only one row per package comes back. The median comes from
 * ROW_NUMBER over each package's times: the average of the middle one or two rows (both
 * dialects have window functions; SQLite has no percentile aggregate built in).
 */
export function learnerProgressQuery(
  db: Kysely<Database>,
  scope: TenantScope,
  filter: LearnerProgressFilter,
) {
  const ranked = db
    .selectFrom('sessions')
    .select([
      'package_id',
      'learner_id',
      'completion_status',
      'success_status',
      'score_scaled',
      'time_spent_seconds',
      sql<number>`row_number() over (partition by package_id order by time_spent_seconds)`.as('rn'),
      sql<number>`count(*) over (partition by package_id)`.as('n'),
    ])
    .where('tenant_id', '=', scope.tenantId)
    .where('mode', '=', scope.mode)
    .$if(filter.package_id !== undefined, (q) =>
      q.where('package_id', '=', filter.package_id ?? ''),
    )
    .$if(filter.from !== undefined, (q) => q.where('created_at', '>=', filter.from ?? ''))
    .$if(filter.to !== undefined, (q) => q.where('created_at', '<', filter.to ?? ''))

  return db
    .selectFrom(ranked.as('r'))
    .leftJoin('packages as p', (join) =>
      join
        .onRef('p.id', '=', 'r.package_id')
        .on('p.tenant_id', '=', scope.tenantId)
        .on('p.mode', '=', scope.mode),
    )
    .select([
      'r.package_id',
      sql<string | null>`max(p.title)`.as('package_title'),
      sql<number>`count(distinct r.learner_id)`.as('learners'),
      sql<number>`count(*)`.as('attempts'),
      sql<number>`sum(case when r.completion_status = 'completed' then 1 else 0 end)`.as(
        'completed',
      ),
      sql<number>`sum(case when r.success_status = 'passed' then 1 else 0 end)`.as('passed'),
      sql<number>`sum(case when r.success_status in ('passed', 'failed') then 1 else 0 end)`.as(
        'judged',
      ),
      sql<number | null>`avg(r.score_scaled)`.as('average_score'),
      sql<number | null>`avg(r.time_spent_seconds)`.as('average_time'),
      sql<
        number | null
      >`avg(case when r.rn in ((r.n + 1) / 2, (r.n + 2) / 2) then r.time_spent_seconds end)`.as(
        'median_time',
      ),
    ])
    .groupBy('r.package_id')
    .orderBy('r.package_id')
}
