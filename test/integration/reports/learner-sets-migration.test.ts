import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { Migrator } from 'kysely/migration'
import pg from 'pg'
import { type Db, migrateToLatest, openDatabase } from '../../../src/infra/db/database.ts'
import { migrationProvider } from '../../../src/infra/db/migrations/index.ts'
import type { Dialect } from '../../../src/infra/db/schema.ts'
import type { SessionsTable } from '../../../src/infra/db/tables/sessions.ts'
import { learnerProgress } from '../../../src/modules/reports/learner-progress.report.ts'
import { randomBase62 } from '../../../src/shared/ids.ts'
import type { TestApp } from '../../helpers/app.ts'
import { DATABASE_TARGETS, POSTGRES_ADMIN_URL } from '../../helpers/database.ts'
import { insertPackage } from '../accounts/accounts-helpers.ts'

/*
 * Migration 0024 on a database that already has sessions (written before it, at 0023): it
 * numbers their learners and rebuilds the rollup in binary, and the report over it counts
 * exactly what the sessions hold; sessions written afterwards get the next numbers.
 */

async function databaseAt0023(dialect: Dialect): Promise<{ db: Db; dispose(): Promise<void> }> {
  let db: Db
  let drop: () => Promise<void>
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cp-0024-'))
    db = openDatabase(`sqlite:${join(dir, 'test.db')}`)
    drop = async () => rmSync(dir, { recursive: true, force: true })
  } else {
    const name = `cp_test_${randomBase62(12).toLowerCase()}`
    const admin = async (text: string) => {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
      await client.connect()
      await client.query(text)
      await client.end()
    }
    await admin(`create database ${name}`)
    const url = new URL(POSTGRES_ADMIN_URL)
    url.pathname = `/${name}`
    db = openDatabase(url.toString())
    drop = () => admin(`drop database if exists ${name} with (force)`)
  }
  const migrator = new Migrator({ db: db.kysely, provider: migrationProvider(dialect) })
  const { error } = await migrator.migrateTo('0023-report-rollups')
  if (error) throw error
  return {
    db,
    async dispose() {
      await db.close()
      await drop()
    },
  }
}

function session(i: number, tenantId: string): SessionsTable {
  const day = String(1 + ((i * 7) % 28)).padStart(2, '0')
  const at = `2026-04-${day}T${String((i * 5) % 24).padStart(2, '0')}:30:00.000Z`
  return {
    id: `ses_up${String(i).padStart(5, '0')}`,
    tenant_id: tenantId,
    mode: i % 9 === 0 ? 'live' : 'test',
    package_id: i % 3 ? 'pkg_up1' : 'pkg_up2',
    version_id: i % 3 ? 'pv_pkg_up1' : 'pv_pkg_up2',
    learner_id: `up-${(i * 13) % 41}`,
    learner_name: `up-${(i * 13) % 41}`,
    dispatch_id: i % 4 ? null : 'dsp_up',
    attempt_number: 1,
    open: 0,
    scorm_version: '1.2',
    completion_status: i % 3 ? 'completed' : 'incomplete',
    success_status: i % 5 ? 'passed' : 'failed',
    score_scaled: i % 2 ? null : (i % 10) / 10,
    score_raw: null,
    score_min: null,
    score_max: null,
    progress_percent: null,
    session_time: null,
    time_spent_seconds: (i * 37) % 900,
    suspended: 0,
    current_item_id: null,
    launch_count: 1,
    created_at: at,
    updated_at: at,
    last_launched_at: at,
    completed_at: null,
    completed_event_at: null,
    failed_event_at: null,
  }
}

for (const target of DATABASE_TARGETS) {
  describe(`migration 0024 on existing sessions [${target.dialect}]`, { skip: target.skip }, () => {
    test('numbers the learners and rebuilds the rollup: the report is exact', async () => {
      const { db, dispose } = await databaseAt0023(target.dialect)
      try {
        const k = db.kysely
        const plan = await k.selectFrom('plans').select('id').executeTakeFirstOrThrow()
        const tenantId = 'ten_upgrade'
        const now = '2026-03-01T00:00:00.000Z'
        await k
          .insertInto('tenants')
          .values({ id: tenantId, name: 'up', plan_id: plan.id, settings: '{}', created_at: now })
          .execute()
        const t = { ctx: { db } } as unknown as Pick<TestApp, 'ctx'>
        for (const mode of ['test', 'live'] as const) {
          await insertPackage(t, tenantId, mode, mode === 'test' ? 'pkg_up1' : 'pkg_live1')
        }
        await insertPackage(t, tenantId, 'test', 'pkg_up2')
        const sessions = Array.from({ length: 240 }, (_, i) => session(i, tenantId)).map((s) =>
          s.mode === 'live' ? { ...s, package_id: 'pkg_live1', version_id: 'pv_pkg_live1' } : s,
        )
        await k.insertInto('sessions').values(sessions).execute()

        // 0024 first, then whatever later migrations there are.
        assert.equal((await migrateToLatest(db))[0], '0024-report-learner-sets')

        for (const mode of ['test', 'live'] as const) {
          const ids = await k
            .selectFrom('report_learner_ids')
            .select('n')
            .where('tenant_id', '=', tenantId)
            .where('mode', '=', mode)
            .execute()
          const own = new Set(sessions.filter((s) => s.mode === mode).map((s) => s.learner_id))
          const sorted = ids.map((r) => Number(r.n)).sort((x, y) => x - y)
          assert.deepEqual(
            sorted,
            [...own].map((_, i) => i),
            `${mode}: one number each, dense`,
          )
        }
        const scope = { tenantId, mode: 'test' as const }
        const ranges = [
          {},
          { from: '2026-04-03T00:00:00.000Z', to: '2026-04-20T00:00:00.000Z' },
          { from: '2026-04-03T11:00:00.000Z', to: '2026-04-20T13:00:00.000Z' },
        ]
        for (const range of ranges) {
          for (const group of ['package', 'dispatch'] as const) {
            const report = await learnerProgress(k, scope, { ...range, group })
            const inRange = sessions.filter(
              (s) =>
                s.mode === 'test' &&
                (!range.from || s.created_at >= range.from) &&
                (!range.to || s.created_at < range.to),
            )
            for (const row of report.rows) {
              const own = inRange.filter(
                (s) =>
                  s.package_id === row.package_id &&
                  (group === 'package' || s.dispatch_id === row.dispatch_id),
              )
              const label = `${JSON.stringify(range)} ${group} ${row.package_id}`
              assert.equal(row.attempts, own.length, label)
              assert.equal(row.learners, new Set(own.map((s) => s.learner_id)).size, label)
            }
            assert.equal(
              report.rows.reduce((n, r) => n + r.attempts, 0),
              inRange.length,
            )
          }
        }
      } finally {
        await dispose()
      }
    })
  })
}
