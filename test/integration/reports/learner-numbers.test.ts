import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { learnerProgress } from '../../../src/modules/reports/learner-progress.report.ts'
import { recordSessionResult } from '../../../src/modules/reports/progress-rollup.repository.ts'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { insertPackage, insertSession } from '../accounts/accounts-helpers.ts'

/*
 * The learners' report numbers (report_learner_ids), which the rollup's learner sets hold: given
 * once per learner even when first sessions are written at the same time (PostgreSQL runs them
 * in parallel), dense, given back by a rolled-back write, and counted exactly by a report whose
 * range cuts days in the middle (partial days read from the sessions, whole days from the sets).
 */
describeEachDatabase('learner-progress report: learner numbers', (database) => {
  let t: TestApp
  let a: TestTenant
  const numbers = async () =>
    (
      await t.ctx.db.kysely
        .selectFrom('report_learner_ids')
        .select(['learner_id', 'n'])
        .where('tenant_id', '=', a.tenantId)
        .where('mode', '=', 'test')
        .execute()
    ).map((r) => ({ learner: r.learner_id, n: Number(r.n) }))

  before(async () => {
    t = await createTestApp(database())
    a = await t.createTenant()
    await insertPackage(t, a.tenantId, 'test', 'pkg_n1')
    await insertPackage(t, a.tenantId, 'test', 'pkg_n2')
  })
  after(() => t.close())

  test('first sessions written at once: one number per learner, never one for two', async () => {
    // 20 new learners, ten of them starting two sessions at the same moment.
    const learners = Array.from({ length: 20 }, (_, i) => `conc-${i}`)
    const writes = [...learners, ...learners.slice(0, 10)].map((learner, i) =>
      insertSession(t, {
        tenantId: a.tenantId,
        mode: 'test',
        packageId: i % 2 ? 'pkg_n1' : 'pkg_n2',
        learner,
        createdAt: `2026-05-02T${String(i % 24).padStart(2, '0')}:00:00.000Z`,
        seconds: 10 + i,
      }),
    )
    await Promise.all(writes)
    const given = await numbers()
    assert.deepEqual(given.map((g) => g.learner).sort(), [...learners].sort())
    assert.equal(new Set(given.map((g) => g.n)).size, learners.length)
    // A learner's two simultaneous first sessions may leave one number unused, no more.
    assert.ok(Math.max(...given.map((g) => g.n)) < 30)
    const report = await learnerProgress(
      t.ctx.db.kysely,
      { tenantId: a.tenantId, mode: 'test' },
      {},
    )
    assert.equal(
      report.rows.reduce((n, r) => n + r.attempts, 0),
      30,
    )
    const expected = new Map<string, Set<string>>()
    ;[...learners, ...learners.slice(0, 10)].forEach((learner, i) => {
      const p = i % 2 ? 'pkg_n1' : 'pkg_n2'
      expected.set(p, (expected.get(p) ?? new Set()).add(learner))
    })
    for (const row of report.rows)
      assert.equal(row.learners, expected.get(row.package_id)?.size, row.package_id)
  })

  test('a rolled-back first session gives its number back', async () => {
    // The counter, not the largest number: simultaneous first sessions may have left a gap.
    const counter = await t.ctx.db.kysely
      .selectFrom('report_learner_counters')
      .select('next_n')
      .where('tenant_id', '=', a.tenantId)
      .where('mode', '=', 'test')
      .executeTakeFirstOrThrow()
    const next = Number(counter.next_n)
    const scope = { tenantId: a.tenantId, mode: 'test' as const }
    const session = await insertSession(t, {
      tenantId: a.tenantId,
      mode: 'test',
      packageId: 'pkg_n1',
      learner: 'kept',
      createdAt: '2026-05-02T12:00:00.000Z',
      seconds: 1,
    })
    const refused = t.ctx.db.kysely.transaction().execute(async (trx) => {
      await recordSessionResult(trx, scope, null, { ...session, learner_id: 'rolled-back' })
      throw new Error('the launch fails after the rollup write')
    })
    await assert.rejects(refused, /launch fails/)
    await insertSession(t, {
      tenantId: a.tenantId,
      mode: 'test',
      packageId: 'pkg_n1',
      learner: 'next',
      createdAt: '2026-05-02T12:00:00.000Z',
      seconds: 1,
    })
    const given = new Map((await numbers()).map((g) => [g.learner, g.n]))
    assert.equal(given.get('rolled-back'), undefined)
    assert.equal(given.get('kept'), next)
    assert.equal(given.get('next'), next + 1)
  })

  test('a range cutting days in the middle counts each learner once', async () => {
    // The same learners on a partial first day, whole days and a partial last day.
    const days = ['2026-06-01T18:00', '2026-06-01T05:00', '2026-06-02T10:00', '2026-06-03T04:00']
    const sessions = []
    for (const [d, at] of days.entries())
      for (let i = 0; i < 6; i++)
        sessions.push(
          await insertSession(t, {
            tenantId: a.tenantId,
            mode: 'test',
            packageId: 'pkg_n1',
            learner: `span-${(i + d) % 8}`,
            createdAt: `${at}:0${i}.000Z`,
            seconds: 60 * i,
            dispatchId: i % 2 ? 'dsp_n' : null,
          }),
        )
    const from = '2026-06-01T12:00:00.000Z'
    const to = '2026-06-03T06:00:00.000Z'
    const inRange = sessions.filter((s) => s.created_at >= from && s.created_at < to)
    const scope = { tenantId: a.tenantId, mode: 'test' as const }
    const perPackage = await learnerProgress(t.ctx.db.kysely, scope, { from, to })
    assert.equal(perPackage.rows.length, 1)
    assert.equal(perPackage.rows[0]?.attempts, inRange.length)
    assert.equal(perPackage.rows[0]?.learners, new Set(inRange.map((s) => s.learner_id)).size)
    const perDispatch = await learnerProgress(t.ctx.db.kysely, scope, {
      from,
      to,
      group: 'dispatch',
    })
    for (const row of perDispatch.rows) {
      const own = inRange.filter((s) => s.dispatch_id === row.dispatch_id)
      assert.equal(row.learners, new Set(own.map((s) => s.learner_id)).size, `${row.dispatch_id}`)
    }
  })
})
