import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { rebuildReportRollups } from '../../../src/infra/db/migrations/0024-report-learner-sets.ts'
import type { SessionsTable } from '../../../src/infra/db/tables/sessions.ts'
import { decodeLearnerSet } from '../../../src/modules/reports/learner-set.ts'
import { recordSessionResult } from '../../../src/modules/reports/progress-rollup.repository.ts'
import { decodeHistogram, exactMedian } from '../../../src/modules/reports/time-histogram.ts'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import {
  createUser,
  insertPackage,
  insertSession,
  type Signed,
} from '../accounts/accounts-helpers.ts'
import { launch, startPlayer, uploadGolf } from '../sessions/runtime-helpers.ts'

/*
 * The learner-progress report (rollup + partial days + learner index) against the plain
 * computation over the sessions table, on a few hundred sessions with the edge cases: sessions
 * at midnight and a millisecond before it, ranges that start and end mid-day, empty ranges,
 * attempts without a score or a verdict, retries, zero and fractional times, sessions whose
 * status changes after they start, and attempts made through the real launch and runtime.
 */

/** The histogram median's documented bound: a bucket spans 2^(1/16). */
const MEDIAN_BOUND = 2 ** (1 / 16) - 1

type Row = Record<string, unknown>

/** The straightforward report: every session of the scope, filtered and grouped in memory. */
function reference(
  sessions: SessionsTable[],
  q: { from?: string; to?: string; package_id?: string; dispatch_id?: string },
  group: 'package' | 'dispatch' | 'learner',
): Map<string, Row> {
  const groups = new Map<string, SessionsTable[]>()
  for (const s of sessions) {
    if (q.from && s.created_at < q.from) continue
    if (q.to && s.created_at >= q.to) continue
    if (q.package_id && s.package_id !== q.package_id) continue
    if (q.dispatch_id && s.dispatch_id !== q.dispatch_id) continue
    const key =
      group === 'package'
        ? s.package_id
        : group === 'dispatch'
          ? `${s.package_id}|${s.dispatch_id}`
          : `${s.package_id}|${s.learner_id}`
    groups.set(key, [...(groups.get(key) ?? []), s])
  }
  const out = new Map<string, Row>()
  for (const [key, list] of groups) {
    const judged = list.filter((s) => s.success_status !== 'unknown')
    const scored = list.filter((s) => s.score_scaled !== null)
    const times = list.map((s) => Number(s.time_spent_seconds))
    out.set(key, {
      learners: new Set(list.map((s) => s.learner_id)).size,
      attempts: list.length,
      completion_rate: list.filter((s) => s.completion_status === 'completed').length / list.length,
      pass_rate: judged.length
        ? judged.filter((s) => s.success_status === 'passed').length / judged.length
        : null,
      average_score: scored.length
        ? scored.reduce((n, s) => n + Number(s.score_scaled), 0) / scored.length
        : null,
      average_time_seconds: times.reduce((n, t) => n + t, 0) / list.length,
      median_time_seconds: exactMedian(times),
    })
  }
  return out
}

function assertClose(actual: unknown, expected: unknown, what: string, tolerance = 1e-9) {
  if (expected === null || actual === null) return assert.equal(actual, expected, what)
  const diff = Math.abs(Number(actual) - Number(expected))
  assert.ok(
    diff <= tolerance * Math.max(1, Math.abs(Number(expected))),
    `${what}: ${actual} vs ${expected}`,
  )
}

describeEachDatabase('learner-progress report against the sessions table', (database) => {
  let t: TestApp
  let a: TestTenant
  let owner: Signed
  const scope = () => ({ tenantId: a.tenantId, mode: 'test' as const })

  before(async () => {
    t = await createTestApp(database())
    a = await t.createTenant('growth')
    const b = await t.createTenant()
    owner = await createUser(t, a.tenantId, 'reports@example.test')
    for (const id of ['pkg_r1', 'pkg_r2', 'pkg_r3']) await insertPackage(t, a.tenantId, 'test', id)
    await insertPackage(t, a.tenantId, 'live', 'pkg_rlive')
    await insertPackage(t, b.tenantId, 'test', 'pkg_rother')

    // A deterministic spread over March 2026: 320 sessions, 37 learners (so retries), three
    // packages, two dispatches and none, times from 0 to hours, some at exact midnights.
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    const inserted: SessionsTable[] = []
    for (let i = 0; i < 320; i++) {
      const day = String(1 + rand(31)).padStart(2, '0')
      const clock =
        i % 17 === 0
          ? 'T00:00:00.000Z'
          : i % 19 === 0
            ? 'T23:59:59.999Z'
            : `T${String(rand(24)).padStart(2, '0')}:${String(rand(60)).padStart(2, '0')}:07.250Z`
      const verdict = rand(3)
      const seconds =
        i % 11 === 0 ? 0 : i % 13 === 0 ? 0.5 + rand(100) / 7 : rand(3) * 600 + rand(4000)
      inserted.push(
        await insertSession(t, {
          tenantId: a.tenantId,
          mode: 'test',
          packageId: ['pkg_r1', 'pkg_r2', 'pkg_r3'][rand(3)] as string,
          learner: `learner-${rand(37)}`,
          createdAt: `2026-03-${day}${clock}`,
          completed: rand(4) !== 0,
          success: verdict === 0 ? 'unknown' : verdict === 1 ? 'passed' : 'failed',
          score: rand(5) === 0 ? null : (rand(201) - 100) / 100,
          seconds,
          dispatchId: [null, 'dsp_one', 'dsp_two'][rand(3)] as string | null,
        }),
      )
    }
    // Later progress of a quarter of them, written as the runtime does (row, then rollup).
    for (const [i, before] of inserted.entries()) {
      if (i % 4 !== 1) continue
      const next: SessionsTable = {
        ...before,
        completion_status: 'completed',
        success_status: i % 8 === 1 ? 'passed' : before.success_status,
        score_scaled: i % 3 === 0 ? null : 0.25,
        time_spent_seconds: Number(before.time_spent_seconds) + 90,
      }
      await t.ctx.db.kysely.transaction().execute(async (trx) => {
        await trx
          .updateTable('sessions')
          .set({
            completion_status: next.completion_status,
            success_status: next.success_status,
            score_scaled: next.score_scaled,
            time_spent_seconds: next.time_spent_seconds,
          })
          .where('id', '=', next.id)
          .execute()
        await recordSessionResult(trx, scope(), before, next)
      })
    }
    // Noise the report must never count: live mode and another tenant.
    await insertSession(t, {
      tenantId: a.tenantId,
      mode: 'live',
      packageId: 'pkg_rlive',
      learner: 'learner-1',
      createdAt: '2026-03-10T10:00:00.000Z',
      seconds: 5,
    })
    await insertSession(t, {
      tenantId: b.tenantId,
      mode: 'test',
      packageId: 'pkg_rother',
      learner: 'learner-1',
      createdAt: '2026-03-10T10:00:00.000Z',
      seconds: 5,
    })

    // The real thing: launches, SCORM 1.2 commits and LMSFinish, and a retry after a pass.
    const pkg = await uploadGolf(t, a.testKey, 'singlescobasic.zip')
    for (const [learner, status, score, time] of [
      ['real-ann', 'passed', '80', '00:02:00'],
      ['real-bob', 'failed', '30', '00:10:00'],
      ['real-ann', 'incomplete', '', '00:00:45'],
      ['real-cy', 'completed', '', '01:00:00'],
    ] as const) {
      const { launch_url } = await launch(t, a.testKey, pkg, learner)
      const player = await startPlayer(t, launch_url)
      const sco = await player.deliver(player.started.current_item_id)
      sco.api.LMSInitialize?.('')
      sco.api.LMSSetValue?.('cmi.core.lesson_status', 'incomplete')
      sco.api.LMSCommit?.('')
      await sco.flush()
      if (score) sco.api.LMSSetValue?.('cmi.core.score.raw', score)
      sco.api.LMSSetValue?.('cmi.core.lesson_status', status)
      sco.api.LMSSetValue?.('cmi.core.session_time', time)
      sco.api.LMSFinish?.('')
      await sco.flush({ beacon: true })
    }
  })
  after(() => t.close())

  const sessions = () =>
    t.ctx.db.kysely
      .selectFrom('sessions')
      .selectAll()
      .where('tenant_id', '=', a.tenantId)
      .where('mode', '=', 'test')
      .execute()

  const report = async (query: Record<string, string>) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/customer/reports/learner-progress?${new URLSearchParams(query)}`,
      headers: { cookie: owner.cookie },
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as { group: string; next_cursor: string | null; packages: Row[] }
  }

  const keyOf = (group: string, row: Row) =>
    group === 'package'
      ? String(row.package_id)
      : group === 'dispatch'
        ? `${row.package_id}|${row.dispatch_id}`
        : `${row.package_id}|${row.learner_id}`

  async function compare(query: Record<string, string>, group: 'package' | 'dispatch') {
    const expected = reference(await sessions(), query, group)
    const { packages: rows } = await report({ ...query, group })
    const what = JSON.stringify(query)
    assert.deepEqual(
      rows.map((r) => keyOf(group, r)).sort(),
      [...expected.keys()].sort(),
      `${what}: the same lines`,
    )
    for (const row of rows) {
      const want = expected.get(keyOf(group, row)) as Row
      const label = `${what} ${keyOf(group, row)}`
      assert.equal(row.learners, want.learners, `${label} learners`)
      assert.equal(row.attempts, want.attempts, `${label} attempts`)
      for (const field of ['completion_rate', 'pass_rate', 'average_score', 'average_time_seconds'])
        assertClose(row[field], want[field], `${label} ${field}`)
      assertClose(
        row.median_time_seconds,
        want.median_time_seconds,
        `${label} median`,
        MEDIAN_BOUND,
      )
    }
    return rows.length
  }

  const ranges: Array<Record<string, string>> = [
    {},
    { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' },
    { from: '2026-03-05T00:00:00.000Z', to: '2026-03-09T00:00:00.000Z' },
    { from: '2026-03-05T13:30:00.000Z', to: '2026-03-20T08:15:00.000Z' },
    { from: '2026-03-05T23:59:59.999Z', to: '2026-03-06T00:00:00.001Z' },
    { from: '2026-03-12T06:00:00.000Z', to: '2026-03-12T18:00:00.000Z' },
    { from: '2026-03-12T00:00:00.000Z' },
    { to: '2026-03-12T12:00:00+02:00' },
    { from: '2026-03-12T00:00:00.000Z', to: '2026-03-12T00:00:00.000Z' },
    { from: '2026-03-20T00:00:00.000Z', to: '2026-03-10T00:00:00.000Z' },
    { from: '2026-03-03T10:00:00.000Z', to: '2026-03-29T00:00:00.000Z', package_id: 'pkg_r2' },
    { from: '2026-03-03T00:00:00.000Z', to: '2026-03-29T10:00:00.000Z', dispatch_id: 'dsp_one' },
  ]

  test('per package: equal to the computation over the sessions table on every range', async () => {
    let lines = 0
    for (const range of ranges) lines += await compare(range, 'package')
    assert.ok(lines > 20, `compared ${lines} lines`)
  })

  test('per dispatch: equal to the computation over the sessions table', async () => {
    for (const range of ranges.slice(0, 5)) await compare(range, 'dispatch')
  })

  test('per learner: exact (median included), paged with a cursor, CSV gives every page', async () => {
    const query = { from: '2026-03-04T12:00:00.000Z', to: '2026-03-27T00:00:00.000Z' }
    const expected = reference(await sessions(), query, 'learner')
    const seen: Row[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page = await report({
        ...query,
        group: 'learner',
        limit: '7',
        ...(cursor && { cursor }),
      })
      seen.push(...page.packages)
      cursor = page.next_cursor
      pages += 1
    } while (cursor)
    assert.ok(pages > 3, `${pages} pages`)
    assert.deepEqual(
      seen.map((r) => keyOf('learner', r)),
      [...expected.keys()].sort(),
      'every (package, learner) once, in order',
    )
    for (const row of seen) {
      const want = expected.get(keyOf('learner', row)) as Row
      const label = keyOf('learner', row)
      // Every figure exact; the median is reported to the millisecond.
      for (const field of Object.keys(want))
        assertClose(
          row[field],
          want[field],
          `${label} ${field}`,
          field.startsWith('median') ? 5e-4 : 1e-9,
        )
    }
    const csv = await t.app.inject({
      url: `/api/customer/reports/learner-progress?${new URLSearchParams({ ...query, group: 'learner', format: 'csv' })}`,
      headers: { cookie: owner.cookie },
    })
    const lines = csv.body.trim().split('\r\n')
    assert.match(lines[0] as string, /^package_id,package_title,learner_id,learner_name,learners,/)
    assert.equal(lines.length, 1 + expected.size)
  })

  test('attempts made through the launch and the runtime are counted as they end', async () => {
    const today = new Date().toISOString().slice(0, 10)
    const rows = (await report({ from: `${today}T00:00:00.000Z` })).packages
    assert.equal(rows.length, 1)
    const [real] = rows as [Row]
    assert.equal(real.attempts, 4, 'two attempts of real-ann: the retry after her pass')
    assert.equal(real.learners, 3)
    assert.equal(real.pass_rate, 0.5)
    assertClose(real.average_score, 0.55, 'average score')
    assertClose(real.average_time_seconds, (120 + 600 + 45 + 3600) / 4, 'average time')
    await compare({ from: `${today}T00:00:00.000Z` }, 'package')
  })

  test('the migration back-fill builds the same rollup the writes kept', async () => {
    const db = t.ctx.db.kysely
    // Learner numbers depend on the order learners came in, so sets compare as learner ids.
    const snapshot = async () => {
      const ids = await db.selectFrom('report_learner_ids').selectAll().execute()
      const idOf = new Map(
        ids.map((r) => [`${r.tenant_id}|${r.mode}|${Number(r.n)}`, r.learner_id]),
      )
      const rows = await db
        .selectFrom('report_daily')
        .selectAll()
        .orderBy('tenant_id')
        .orderBy('mode')
        .orderBy('package_id')
        .orderBy('dispatch_key')
        .orderBy('day')
        .execute()
      return rows.map((r) => ({
        ...r,
        attempts: Number(r.attempts),
        completed: Number(r.completed),
        passed: Number(r.passed),
        failed: Number(r.failed),
        scored: Number(r.scored),
        score_sum: Math.round(Number(r.score_sum) * 1e6),
        time_sum: Math.round(Number(r.time_sum) * 1e6),
        learner_set: decodeLearnerSet(r.learner_set)
          .map((n) => idOf.get(`${r.tenant_id}|${r.mode}|${n}`))
          .sort(),
        time_buckets: Object.fromEntries(
          Object.entries(decodeHistogram(r.time_buckets))
            .map(([k, [c, s]]) => [k, [c, Math.round(s * 1e6)]])
            .sort(),
        ),
      }))
    }
    const kept = await snapshot()
    assert.ok(kept.length > 50)
    assert.ok(kept.every((r) => r.learner_set.every((id) => id !== undefined)))
    await rebuildReportRollups(db)
    assert.deepEqual(await snapshot(), kept)
    const numbers = await db
      .selectFrom('report_learner_ids')
      .select('n')
      .where('tenant_id', '=', a.tenantId)
      .where('mode', '=', 'test')
      .execute()
    const dense = numbers.map((r) => Number(r.n)).sort((x, y) => x - y)
    assert.deepEqual(dense, [...dense.keys()], 'the back-fill numbers learners from 0, no gaps')
    // The report over the rebuilt rollup: unchanged, and new sessions keep numbering after it.
    await compare({ from: '2026-03-05T13:30:00.000Z', to: '2026-03-20T08:15:00.000Z' }, 'dispatch')
    await insertSession(t, {
      tenantId: a.tenantId,
      mode: 'test',
      packageId: 'pkg_r1',
      learner: 'learner-after-rebuild',
      createdAt: '2026-03-15T10:00:00.000Z',
      seconds: 30,
    })
    const added = await db
      .selectFrom('report_learner_ids')
      .select('n')
      .where('learner_id', '=', 'learner-after-rebuild')
      .executeTakeFirstOrThrow()
    assert.equal(Number(added.n), dense.length)
    await compare({ from: '2026-03-15T00:00:00.000Z', to: '2026-03-16T00:00:00.000Z' }, 'package')
  })
})
