import { type Kysely, sql } from 'kysely'
import { encodeLearnerSet } from '../../../modules/reports/learner-set.ts'
import {
  ALL_DISPATCHES,
  addCounts,
  type Counts,
  countsOf,
  rollupKey,
  type SessionResult,
  ZERO_COUNTS,
} from '../../../modules/reports/progress-rollup.ts'
import {
  addTime,
  encodeHistogram,
  type TimeHistogram,
} from '../../../modules/reports/time-histogram.ts'
import type { Database, Dialect } from '../schema.ts'

/**
 * The learner-progress rollup in binary (issue 12.3): at 200 000 sessions the widest reports
 * (every package over all time, per dispatch, their CSV) spent 150–400 ms parsing the rows' JSON
 * learner lists and histograms and building a set of 200 000 strings. Now:
 * - `report_learner_ids` gives each learner of a tenant and mode a dense number (from 0;
 *   `report_learner_counters` holds the next one), given by the session write that creates the
 *   learner's first session (learner-numbers.repository.ts), here to the existing learners;
 * - `report_daily.learner_set` holds a row's learners as sorted numbers in delta varints
 *   (learner-set.ts), so a range's active learners are a bitset union, still exact;
 * - `report_daily.time_buckets` holds the time histogram in binary (time-histogram.ts).
 * `report_daily` is a rollup of the sessions, so it is rebuilt from them rather than converted.
 */
export function reportLearnerSetsMigration(dialect: Dialect) {
  const binary = dialect === 'postgres' ? 'bytea' : 'blob'
  return {
    async up(unknownDb: Kysely<unknown>): Promise<void> {
      const db = unknownDb as Kysely<Database>
      await db.schema.dropTable('report_daily').execute()
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
        .addColumn('time_buckets', binary, (c) => c.notNull())
        .addColumn('learner_set', binary, (c) => c.notNull())
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
        .createTable('report_learner_ids')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('learner_id', 'text', (c) => c.notNull())
        .addColumn('n', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_learner_ids_pk', ['tenant_id', 'mode', 'learner_id'])
        .execute()
      // A number given twice would merge two learners in every count: refused, not trusted.
      // `n` leads so that the index never looks like a way to find a learner by (tenant, mode):
      // PostgreSQL without statistics took it for the report's lookups, scanning the tenant.
      await db.schema
        .createIndex('report_learner_ids_number')
        .on('report_learner_ids')
        .columns(['n', 'tenant_id', 'mode'])
        .unique()
        .execute()
      await db.schema
        .createTable('report_learner_counters')
        .addColumn('tenant_id', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('next_n', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_learner_counters_pk', ['tenant_id', 'mode'])
        .execute()
      await rebuildReportRollups(db)
      // Freshly filled tables have no statistics until autovacuum comes by; plan with them now.
      if (dialect === 'postgres')
        await sql`analyze report_daily, report_learner_ids, report_learner_counters`.execute(db)
    },
  }
}

interface Cell {
  counts: Counts
  histogram: TimeHistogram
  learners: Set<number>
}

/**
 * Rebuilds `report_daily`, the learner numbers and their counters from every session, through
 * the same pure counting (progress-rollup.ts) as the live hook: the migration's back-fill, and
 * what the bench and the tests call after writing sessions by SQL. Sessions are read in id
 * order, 5 000 at a time.
 */
export async function rebuildReportRollups(db: Kysely<Database>): Promise<void> {
  await db.deleteFrom('report_daily').execute()
  await db.deleteFrom('report_learner_ids').execute()
  await db.deleteFrom('report_learner_counters').execute()
  const numbers = new Map<string, Map<string, number>>()
  const cells = new Map<string, Cell>()
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
      const scopeKey = JSON.stringify([s.tenant_id, s.mode])
      const own = numbers.get(scopeKey) ?? new Map<string, number>()
      numbers.set(scopeKey, own)
      let n = own.get(s.learner_id)
      if (n === undefined) {
        n = own.size
        own.set(s.learner_id, n)
      }
      const k = rollupKey(s as SessionResult)
      for (const dispatchKey of [k.dispatch_key, ALL_DISPATCHES]) {
        const id = JSON.stringify([s.tenant_id, s.mode, k.package_id, dispatchKey, k.day])
        const cell = cells.get(id) ?? {
          counts: { ...ZERO_COUNTS },
          histogram: {},
          learners: new Set<number>(),
        }
        cells.set(id, cell)
        cell.counts = addCounts(cell.counts, countsOf(s as SessionResult))
        addTime(cell.histogram, Number(s.time_spent_seconds), 1)
        cell.learners.add(n)
      }
    }
    if (batch.length < 5000) break
    after = (batch.at(-1) as { id: string }).id
  }
  await insertNumbers(db, numbers)
  const rows = [...cells].map(([id, cell]) => {
    const [tenant_id, mode, package_id, dispatch_key, day] = JSON.parse(id) as string[]
    return {
      tenant_id: tenant_id as string,
      mode: mode as 'live' | 'test',
      package_id: package_id as string,
      dispatch_key: dispatch_key as string,
      day: day as string,
      ...cell.counts,
      time_buckets: encodeHistogram(cell.histogram),
      learner_set: encodeLearnerSet([...cell.learners].sort((a, b) => a - b)),
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

async function insertNumbers(db: Kysely<Database>, numbers: Map<string, Map<string, number>>) {
  for (const [scopeKey, own] of numbers) {
    const [tenant_id, mode] = JSON.parse(scopeKey) as [string, 'live' | 'test']
    const rows = [...own].map(([learner_id, n]) => ({ tenant_id, mode, learner_id, n }))
    for (let i = 0; i < rows.length; i += 1000) {
      await db
        .insertInto('report_learner_ids')
        .values(rows.slice(i, i + 1000))
        .execute()
    }
    await db
      .insertInto('report_learner_counters')
      .values({ tenant_id, mode, next_n: own.size })
      .execute()
  }
}
