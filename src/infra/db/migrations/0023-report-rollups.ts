import type { Kysely } from 'kysely'
import {
  ALL_DISPATCHES,
  accumulate,
  type Counts,
  rollupKey,
  type SessionResult,
  ZERO_COUNTS,
} from '../../../modules/reports/progress-rollup.ts'
import type { TimeHistogram } from '../../../modules/reports/time-histogram.ts'
import type { Database, Dialect } from '../schema.ts'
import type { ReportDailyTable } from '../tables/reports.ts'

/** `report_daily` as this migration made it: JSON histograms and learner lists (see 0024). */
type Database0023 = Omit<Database, 'report_daily'> & {
  report_daily: Omit<ReportDailyTable, 'time_buckets' | 'learner_set'> & {
    time_histogram: string
    learners: string
  }
}

/**
 * The learner-progress report (issue 12.3; modules/reports):
 * - `report_daily`, one row per (tenant, mode, package, dispatch, UTC day of `created_at`), and
 *   one per (tenant, mode, package, day) for all dispatches (`dispatch_key` '*'), with the
 *   attempts' counts, sums, time histogram and learners, kept current by the session writes
 *   (`recordSessionResult`) and back-filled here from the sessions that exist;
 * - `sessions_report_learners (tenant_id, mode, package_id, learner_id, created_at,
 *   dispatch_id)`: distinct learners in a date range, and the per-learner rows, read from the
 *   index alone in (package, learner) order. Its columns never change after the insert, so
 *   runtime commits do not write it.
 *
 * The back-fill reads sessions in id order, 5 000 at a time, through the same pure counting
 * (modules/reports/progress-rollup.ts) as the live hook.
 */
export function reportRollupsMigration(_dialect: Dialect) {
  return {
    async up(unknownDb: Kysely<unknown>): Promise<void> {
      const db = unknownDb as Kysely<Database0023>
      await db.schema
        .createTable('report_daily')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('package_id', 'text', (c) => c.notNull())
        .addColumn('dispatch_key', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('completed', 'integer', (c) => c.notNull())
        .addColumn('passed', 'integer', (c) => c.notNull())
        .addColumn('failed', 'integer', (c) => c.notNull())
        .addColumn('scored', 'integer', (c) => c.notNull())
        .addColumn('score_sum', 'double precision', (c) => c.notNull())
        .addColumn('time_sum', 'double precision', (c) => c.notNull())
        .addColumn('time_histogram', 'text', (c) => c.notNull())
        .addColumn('learners', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_daily_pk', [
          'tenant_id',
          'mode',
          'package_id',
          'dispatch_key',
          'day',
        ])
        .execute()
      // The per-package report reads the all-dispatch rows ('*') of a date range.
      await db.schema
        .createIndex('report_daily_scope_dispatch_day')
        .on('report_daily')
        .columns(['tenant_id', 'mode', 'dispatch_key', 'day'])
        .execute()
      await db.schema
        .createIndex('sessions_report_learners')
        .on('sessions')
        .columns(['tenant_id', 'mode', 'package_id', 'learner_id', 'created_at', 'dispatch_id'])
        .execute()

      await backfillReportDaily(db)
    },
  }
}

/**
 * Builds `report_daily` from every session (the table must be empty): the migration's back-fill,
 * in this migration's JSON form; 0024 rebuilds the table in binary (`rebuildReportRollups`).
 */
async function backfillReportDaily(db: Kysely<Database0023>): Promise<void> {
  const cells = new Map<
    string,
    { counts: Counts; histogram: TimeHistogram; learners: Set<string> }
  >()
  let after = ''
  for (;;) {
    const batch = await db
      .selectFrom('sessions')
      .select([
        'id',
        'tenant_id',
        'mode',
        'package_id',
        'dispatch_id',
        'created_at',
        'learner_id',
        'completion_status',
        'success_status',
        'score_scaled',
        'time_spent_seconds',
      ])
      .where('id', '>', after)
      .orderBy('id')
      .limit(5000)
      .execute()
    for (const s of batch) {
      const k = rollupKey(s as SessionResult)
      for (const dispatchKey of [k.dispatch_key, ALL_DISPATCHES]) {
        const id = JSON.stringify([s.tenant_id, s.mode, k.package_id, dispatchKey, k.day])
        const cell = cells.get(id) ?? {
          counts: { ...ZERO_COUNTS },
          histogram: {},
          learners: new Set<string>(),
        }
        cells.set(id, cell)
        accumulate(cell, s as SessionResult)
      }
    }
    if (batch.length < 5000) break
    after = (batch.at(-1) as { id: string }).id
  }

  const rows = [...cells].map(([id, cell]) => {
    const [tenant_id, mode, package_id, dispatch_key, day] = JSON.parse(id) as string[]
    return {
      tenant_id: tenant_id as string,
      mode: mode as 'live' | 'test',
      package_id: package_id as string,
      dispatch_key: dispatch_key as string,
      day: day as string,
      ...cell.counts,
      time_histogram: JSON.stringify(cell.histogram),
      learners: JSON.stringify([...cell.learners]),
    }
  })
  // 14 columns × 500 rows stays under both dialects' bound-parameter limits.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('report_daily')
      .values(rows.slice(i, i + 500))
      .execute()
  }
}
