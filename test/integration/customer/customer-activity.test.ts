import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { recordAuditEvent } from '../../../src/modules/events/audit-event.repository.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { createUser, type Signed } from '../accounts/accounts-helpers.ts'
import { createWebhookTestApp, type WebhookTestApp } from '../webhooks/webhook-test-app.ts'

interface Activity {
  mode: string
  days: { day: string; launches: number; completions: number; new_active_learners: number }[]
  usage: {
    billing_period: string
    active_learners: number
    allotment: number | null
    thresholds: { percent: number; learners: number; reached: boolean }[]
  }
  recent_events: { type: string; occurred_at: string }[]
}

describeEachDatabase('dashboard overview activity (charts, usage, recent events)', (database) => {
  const clock = new ManualClock('2026-11-20T12:00:00.000Z')
  let t: WebhookTestApp
  let viewer: Signed
  let other: Signed

  before(async () => {
    t = await createWebhookTestApp(database(), { clock })
    const a = await t.createTenant()
    const b = await t.createTenant()
    viewer = await createUser(t, a.tenantId, 'viewer@a.test', 'viewer')
    other = await createUser(t, b.tenantId, 'owner@b.test', 'owner')
    const db = t.ctx.db.kysely
    const test = { tenantId: a.tenantId, mode: 'test' as const }
    const event = (
      type: string,
      at: string,
      scope: { tenantId: string; mode: 'test' | 'live' } = test,
    ) =>
      recordAuditEvent(db, scope, {
        type,
        entityType: 'package',
        entityId: 'pkg_x',
        data: {},
        occurredAt: at,
      })
    await event('package.launched', '2026-11-19T09:00:00.000Z')
    await event('package.launched', '2026-11-19T23:59:59.000Z')
    await event('package.launched', '2026-11-20T08:00:00.000Z')
    await event('session.completed', '2026-11-20T09:00:00.000Z')
    // Outside the window, and in live mode: not counted.
    await event('package.launched', '2026-10-01T09:00:00.000Z')
    await event('package.launched', '2026-11-20T09:00:00.000Z', { ...test, mode: 'live' })
    // Seven of the sandbox plan's 10 learners: the 70 % threshold is reached, 90 % is not.
    await db
      .insertInto('usage_learners')
      .values(
        Array.from({ length: 7 }, (_, i) => ({
          tenant_id: a.tenantId,
          mode: 'test' as const,
          period: '2026-11',
          learner_id: `l${i}`,
          first_launch_at: i < 5 ? '2026-11-19T10:00:00.000Z' : '2026-11-20T10:00:00.000Z',
        })),
      )
      .execute()
    await db
      .insertInto('usage_counters')
      .values({ tenant_id: a.tenantId, mode: 'test', period: '2026-11', active_learners: 7 })
      .execute()
  })
  after(() => t.close())

  const activity = async (who: Signed, query = '') => {
    const res = await t.app.inject({
      url: `/api/customer/overview/activity${query}`,
      headers: { cookie: who.cookie },
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as Activity
  }

  test('per-day launches, completions and new learners over the window, zeros included', async () => {
    const a = await activity(viewer, '?days=7')
    assert.equal(a.mode, 'test')
    assert.deepEqual(
      a.days.map((d) => d.day),
      [
        '2026-11-14',
        '2026-11-15',
        '2026-11-16',
        '2026-11-17',
        '2026-11-18',
        '2026-11-19',
        '2026-11-20',
      ],
    )
    assert.deepEqual(a.days.at(-2), {
      day: '2026-11-19',
      launches: 2,
      completions: 0,
      new_active_learners: 5,
    })
    assert.deepEqual(a.days.at(-1), {
      day: '2026-11-20',
      launches: 1,
      completions: 1,
      new_active_learners: 2,
    })
    assert.equal(
      a.days.slice(0, 5).reduce((n, d) => n + d.launches + d.completions, 0),
      0,
    )
    assert.equal((await activity(viewer)).days.length, 30)
  })

  test('usage against the allotment with the 70/90/100 % thresholds', async () => {
    const { usage } = await activity(viewer)
    assert.deepEqual(usage, {
      billing_period: '2026-11',
      active_learners: 7,
      allotment: 10,
      thresholds: [
        { percent: 70, learners: 7, reached: true },
        { percent: 90, learners: 9, reached: false },
        { percent: 100, learners: 10, reached: false },
      ],
    })
  })

  test('recent events newest first, of the mode and the tenant only', async () => {
    const a = await activity(viewer)
    assert.deepEqual(
      a.recent_events.map((e) => `${e.type}@${e.occurred_at.slice(0, 13)}`),
      [
        'session.completed@2026-11-20T09',
        'package.launched@2026-11-20T08',
        'package.launched@2026-11-19T23',
        'package.launched@2026-11-19T09',
        'package.launched@2026-10-01T09',
      ],
    )
    const live = await activity(viewer, '?mode=live')
    assert.deepEqual(
      live.recent_events.map((e) => e.type),
      ['package.launched'],
    )
    const stranger = await activity(other)
    assert.deepEqual(stranger.recent_events, [])
    assert.equal(stranger.usage.active_learners, 0)
  })

  test('an API key is refused', async () => {
    const res = await t.app.inject({
      url: '/api/customer/overview/activity',
      headers: { authorization: 'Bearer cp_test_nope' },
    })
    assert.equal(res.statusCode, 401)
  })
})
