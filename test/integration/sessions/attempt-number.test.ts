import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import {
  latestAttemptNumber,
  latestAttemptQuery,
} from '../../../src/modules/sessions/session.repository.ts'
import type { TenantScope } from '../../../src/modules/tenants/tenant-scope.ts'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { launch, uploadGolf } from './runtime-helpers.ts'

/** Sessions the package gets besides the test's own (500 learners × 8 finished attempts). */
const BULK = 4000

// Issue 15: a new learner's attempt number must not cost a scan of the package's sessions.
describeEachDatabase('the attempt number of a launch', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let scope: TenantScope
  let pkg: string
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('sandbox')
    scope = { tenantId: tenant.tenantId, mode: 'test' }
    pkg = await uploadGolf(t, tenant.testKey, 'singlesco_scorm12.zip')
    const first = await launch(t, tenant.testKey, pkg, 'seed@example.com')
    const db = t.ctx.db.kysely
    // Closed attempts of other learners, written by SQL (fast), copying the seed session.
    const numbers =
      database().dialect === 'postgres'
        ? sql`select n as i from generate_series(1, ${BULK}) as g(n)`
        : sql`select value as i from json_each(${JSON.stringify(Array.from({ length: BULK }, (_, i) => i + 1))})`
    await sql`insert into sessions (id, tenant_id, mode, package_id, version_id, learner_id,
        learner_name, attempt_number, open, scorm_version, completion_status, success_status,
        time_spent_seconds, suspended, launch_count, created_at, updated_at, last_launched_at)
      select 'ses_bulk' || cast(n.i as text), s.tenant_id, s.mode, s.package_id, s.version_id,
        'bulk-' || cast(n.i % 500 as text), 'Bulk', n.i / 500 + 1, 0, s.scorm_version,
        'completed', 'passed', 0, 0, 1, s.created_at, s.updated_at, s.last_launched_at
      from sessions s cross join (${numbers}) n where s.id = ${first.session_id}`.execute(db)
    await sql`analyze`.execute(db)
  })
  after(() => t.close())

  test("is the learner's highest plus one, per learner", async () => {
    const db = t.ctx.db.kysely
    assert.equal(await latestAttemptNumber(db, scope, pkg, 'bulk-7'), BULK / 500)
    assert.equal(await latestAttemptNumber(db, scope, pkg, 'new@example.com'), 0)
    const other = { tenantId: tenant.tenantId, mode: 'live' as const }
    assert.equal(await latestAttemptNumber(db, other, pkg, 'bulk-7'), 0, 'the other mode is apart')
    const started = await launch(t, tenant.testKey, pkg, 'bulk-7')
    assert.equal(started.attempt, BULK / 500 + 1)
  })

  test('is one index seek, without a sort, whatever the package holds', async () => {
    const db = t.ctx.db.kysely
    const query = latestAttemptQuery(db, scope, pkg, 'bulk-7').compile()
    const explain = database().dialect === 'postgres' ? 'explain ' : 'explain query plan '
    const result = await db.executeQuery<Record<string, unknown>>({
      ...query,
      sql: explain + query.sql,
    })
    const plan = result.rows.map((r) => String(r['QUERY PLAN'] ?? r.detail ?? '')).join('\n')
    assert.match(plan, /sessions_learner_attempt/, plan)
    assert.doesNotMatch(plan, /\bSort\b|TEMP B-TREE|Seq Scan|SCAN sessions\b/, plan)
  })
})
