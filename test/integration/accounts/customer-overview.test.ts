import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { recordAuditEvent } from '../../../src/modules/events/audit-event.repository.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { createWebhookTestApp, type WebhookTestApp } from '../webhooks/webhook-test-app.ts'
import { createUser, insertPackage, type Signed } from './accounts-helpers.ts'

describeEachDatabase('dashboard overview figures', (database) => {
  const clock = new ManualClock('2026-11-20T12:00:00.000Z')
  let t: WebhookTestApp
  let viewer: Signed
  let other: Signed

  before(async () => {
    t = await createWebhookTestApp(database(), { clock })
    const a = await t.createTenant()
    const b = await t.createTenant()
    viewer = await createUser(t, a.tenantId, 'viewer@o.test', 'viewer')
    const admin = await createUser(t, a.tenantId, 'admin@o.test', 'admin')
    other = await createUser(t, b.tenantId, 'owner@o.test', 'owner')
    const db = t.ctx.db.kysely
    const test = { tenantId: a.tenantId, mode: 'test' as const }
    await insertPackage(t, a.tenantId, 'test', 'pkg_one')
    await insertPackage(t, a.tenantId, 'test', 'pkg_two')
    await insertPackage(t, a.tenantId, 'test', 'pkg_old')
    await insertPackage(t, a.tenantId, 'live', 'pkg_live')
    await db
      .updateTable('packages')
      .set({ status: 'archived' })
      .where('id', '=', 'pkg_old')
      .execute()
    await db
      .insertInto('usage_counters')
      .values([
        { ...keyOf(test), period: '2026-11', active_learners: 12 },
        { ...keyOf(test), period: '2026-10', active_learners: 99 },
      ])
      .execute()
    // Two completions this week, one 8 days ago; one in live mode.
    for (const [at, scope] of [
      ['2026-11-19T09:00:00.000Z', test],
      ['2026-11-14T09:00:00.000Z', test],
      ['2026-11-12T09:00:00.000Z', test],
      ['2026-11-19T09:00:00.000Z', { ...test, mode: 'live' as const }],
    ] as const)
      await recordAuditEvent(db, scope, {
        type: 'session.completed',
        entityType: 'session',
        entityId: 'ses_x',
        data: {},
        occurredAt: at,
      })
    // Two endpoints: one with a dead letter this week (failing), one that only succeeded.
    for (const path of ['failing', 'fine']) {
      const made = await t.app.inject({
        method: 'POST',
        url: '/api/customer/webhooks',
        headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf },
        payload: { url: `https://127.0.0.1:9/${path}`, eventScope: 'all' },
      })
      const id = made.json().webhook.id
      const sent = await t.app.inject({
        method: 'POST',
        url: `/api/customer/webhooks/${id}/test`,
        headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf },
      })
      await db
        .updateTable('webhook_deliveries')
        .set({ status: path === 'failing' ? 'dead_letter' : 'delivered' })
        .where('id', '=', sent.json().delivery.delivery_id)
        .execute()
    }
  })
  after(() => t.close())

  const overview = (who: Signed, mode?: string) =>
    t.app.inject({
      url: `/api/customer/overview${mode ? `?mode=${mode}` : ''}`,
      headers: { cookie: who.cookie },
    })

  test('counts packages, active learners this month, completions and failing webhooks', async () => {
    const res = await overview(viewer)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), {
      mode: 'test',
      packages: 2,
      active_learners: 12,
      billing_period: '2026-11',
      sessions_completed: 2,
      failing_webhooks: 1,
      since: '2026-11-13T12:00:00.000Z',
    })
    const live = (await overview(viewer, 'live')).json()
    assert.deepEqual(
      [live.packages, live.active_learners, live.sessions_completed, live.failing_webhooks],
      [1, 0, 1, 0],
    )
    const outsider = (await overview(other)).json()
    assert.deepEqual(
      [outsider.packages, outsider.active_learners, outsider.sessions_completed],
      [0, 0, 0],
    )
  })
})

function keyOf(scope: { tenantId: string; mode: 'test' | 'live' }) {
  return { tenant_id: scope.tenantId, mode: scope.mode }
}
