import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { TaskContext } from '../../../src/infra/queue/index.ts'
import { cleanupTask } from '../../../src/jobs/cleanup.job.ts'
import { SCHEDULES } from '../../../src/jobs/registry.ts'
import { AccountService } from '../../../src/modules/accounts/account.service.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { createUser, PASSWORD } from './accounts-helpers.ts'

const HOUR = 3600_000

describeEachDatabase('expired dashboard sign-ins are removed by the hourly cleanup', (database) => {
  let t: TestApp
  let tenant: TestTenant
  const clock = new ManualClock(new Date('2026-11-01T08:00:00Z'))
  before(async () => {
    t = await createTestApp(database(), { clock })
    tenant = await t.createTenant()
  })
  after(() => t.close())

  const context = (): TaskContext => ({
    jobId: 'job_test',
    attempt: 1,
    maxAttempts: 1,
    signal: new AbortController().signal,
    clock,
  })
  const sessionsOf = async (userId: string) =>
    (
      await t.ctx.db.kysely
        .selectFrom('dashboard_sessions')
        .select('last_seen_at')
        .where('user_id', '=', userId)
        .execute()
    ).length
  const login = async (email: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/customer/login',
      payload: { email, password: PASSWORD },
    })
    assert.equal(res.statusCode, 200, res.body)
    return String(res.headers['set-cookie']).split(';')[0] as string
  }

  test('the cleanup is on the hourly schedule', () => {
    assert.ok(SCHEDULES.some((s) => s.task === 'maintenance.cleanup' && s.intervalSeconds <= 3600))
  })

  test('idle and past-expiry sessions and stale invite links go; a session in use stays', async () => {
    const idle = await createUser(t, tenant.tenantId, 'idle@example.test')
    const busy = await createUser(t, tenant.tenantId, 'busy@example.test')
    const accounts = new AccountService({ db: t.ctx.db.kysely, clock })
    await accounts.createInvite(
      tenant.tenantId,
      { email: 'late@example.test', role: 'viewer' },
      null,
    )

    // 3 hours on: `idle` has not been seen for longer than the 2-hour idle limit; `busy` signs
    // in again (a fresh session) and keeps using it.
    clock.advance(3 * HOUR)
    const fresh = await login(busy.email)
    await cleanupTask(t.ctx).handler({}, context())
    assert.equal(await sessionsOf(idle.userId), 0, 'the idle session is gone')
    assert.equal(
      await sessionsOf(busy.userId),
      1,
      "busy's old session is gone, the fresh one stays",
    )
    const me = await t.app.inject({ url: '/api/customer/me', headers: { cookie: fresh } })
    assert.equal(me.statusCode, 200, 'the kept session still signs in')

    // Active every hour until past the 12-hour absolute expiry: removed even though not idle.
    for (let h = 0; h < 12; h++) {
      clock.advance(HOUR)
      await t.app.inject({ url: '/api/customer/me', headers: { cookie: fresh } })
    }
    await cleanupTask(t.ctx).handler({}, context())
    assert.equal(await sessionsOf(busy.userId), 0, 'past its absolute expiry')

    // The invite expired after 72 hours; a day later its row goes.
    clock.advance(4 * 24 * HOUR)
    await cleanupTask(t.ctx).handler({}, context())
    const invites = await t.ctx.db.kysely
      .selectFrom('dashboard_invites')
      .select('email')
      .where('tenant_id', '=', tenant.tenantId)
      .execute()
    assert.deepEqual(invites, [])
  })
})
