import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { createQueue, type TaskContext } from '../../../src/infra/queue/index.ts'
import { cleanupTask } from '../../../src/jobs/cleanup.job.ts'
import { webhookPruneTask } from '../../../src/jobs/webhook-prune.job.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'

const DAY = 24 * 3600 * 1000
const ZIP = fixture('scorm', 'golf', 'singlescobasic.zip')

function jobContext(clock: ManualClock): TaskContext {
  return {
    jobId: 'job_test',
    attempt: 1,
    maxAttempts: 1,
    signal: new AbortController().signal,
    clock,
  }
}

describeEachDatabase('maintenance jobs', (database) => {
  let t: TestApp
  let tenant: TestTenant
  const clock = new ManualClock(new Date('2026-11-01T10:00:00Z'))
  before(async () => {
    t = await createTestApp(database(), { clock })
    tenant = await t.createTenant()
  })
  after(() => t.close())

  async function issueUpload() {
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers: bearer(tenant.testKey),
      payload: { filename: 'course.zip', file_size: ZIP.length },
    })
    assert.equal(issued.statusCode, 200, issued.body)
    return issued.json() as {
      presigned_url: string
      required_put_headers: Record<string, string>
      storage_path: string
    }
  }

  async function putTo(presignedUrl: string, headers: Record<string, string>) {
    return t.app.inject({
      method: 'PUT',
      url: new URL(presignedUrl).pathname,
      headers: { ...headers, 'content-type': 'application/zip' },
      payload: ZIP,
    })
  }

  test('a presigned URL refuses a PUT once its upload was processed, and stores nothing', async () => {
    const issued = await issueUpload()
    assert.equal((await putTo(issued.presigned_url, issued.required_put_headers)).statusCode, 200)
    const processed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/process',
      headers: bearer(tenant.testKey),
      payload: { storage_path: issued.storage_path },
    })
    assert.equal(processed.statusCode, 201, processed.body)
    assert.equal(await t.ctx.blobs.head(issued.storage_path), null, 'processing removed the upload')
    const again = await putTo(issued.presigned_url, issued.required_put_headers)
    assert.equal(again.statusCode, 409, again.body)
    assert.equal(again.json().error.code, 'conflict')
    assert.equal(await t.ctx.blobs.head(issued.storage_path), null, 'nothing left behind')
  })

  test('cleanup deletes upload objects and records a day after their URL expired, processed or not', async () => {
    const processed = await issueUpload()
    const abandoned = await issueUpload()
    const fresh = await issueUpload()
    // A late PUT to S3 cannot be refused: simulate the object it leaves after processing.
    await sql`update upload_intents set consumed_at = ${clock.now().toISOString()} where storage_path = ${processed.storage_path}`.execute(
      t.ctx.db.kysely,
    )
    await t.ctx.blobs.put(processed.storage_path, Buffer.from('late put'))
    await t.ctx.blobs.put(abandoned.storage_path, Buffer.from('never processed'))
    const ttl = t.ctx.config.upload.urlTtlSeconds * 1000
    clock.advance(ttl + DAY + 60_000)
    const later = await issueUpload() // issued now: its URL is still valid
    await t.ctx.blobs.put(later.storage_path, Buffer.from('in flight'))

    await cleanupTask(t.ctx).handler(null, jobContext(clock))

    for (const gone of [processed, abandoned, fresh]) {
      assert.equal(await t.ctx.blobs.head(gone.storage_path), null, gone.storage_path)
    }
    const { rows } = await sql<{
      storage_path: string
    }>`select storage_path from upload_intents`.execute(t.ctx.db.kysely)
    assert.deepEqual(
      rows.map((r) => r.storage_path).filter((p) => p.includes(tenant.tenantId)),
      [later.storage_path],
    )
    assert.ok(await t.ctx.blobs.head(later.storage_path), 'a live upload is kept')
  })

  test('cleanup prunes old replay records, rate-limit windows and completed jobs through the queue', async () => {
    const db = t.ctx.db.kysely
    const now = clock.now()
    const old = new Date(now.getTime() - 2 * DAY).toISOString()
    await sql`insert into idempotency_keys (tenant_id, mode, key, fingerprint, created_at)
      values (${tenant.tenantId}, 'test', 'old', 'f', ${old}),
             (${tenant.tenantId}, 'test', 'new', 'f', ${now.toISOString()})`.execute(db)
    await sql`insert into rate_limits (bucket, window_start, count)
      values ('old', ${now.getTime() - 2 * 3600_000}, 1), ('new', ${now.getTime()}, 1),
             ('login', ${now.getTime() - 15 * 60_000}, 5)`.execute(db)
    const queue = createQueue(t.ctx.db, { clock })
    const done = await queue.enqueue(db, { task: 'test.noop' })
    const recent = await queue.enqueue(db, { task: 'test.noop' })
    const failed = await queue.enqueue(db, { task: 'test.noop' })
    const eightDaysAgo = new Date(now.getTime() - 8 * DAY).toISOString()
    await sql`update jobs set status = 'completed', updated_at = ${eightDaysAgo} where id = ${done}`.execute(
      db,
    )
    await sql`update jobs set status = 'completed' where id = ${recent}`.execute(db)
    await sql`update jobs set status = 'failed', updated_at = ${eightDaysAgo} where id = ${failed}`.execute(
      db,
    )

    await cleanupTask(t.ctx).handler(null, jobContext(clock))

    const keys = await sql<{
      key: string
    }>`select key from idempotency_keys where tenant_id = ${tenant.tenantId}`.execute(db)
    assert.deepEqual(
      keys.rows.map((r) => r.key),
      ['new'],
    )
    const windows = await sql<{
      bucket: string
    }>`select bucket from rate_limits where bucket in ('old', 'new', 'login') order by bucket`.execute(
      db,
    )
    // A login throttle's 15-minute window is still counting: it must survive the run.
    assert.deepEqual(
      windows.rows.map((r) => r.bucket),
      ['login', 'new'],
    )
    assert.equal(await queue.jobs.get(done), undefined, 'a week-old completed job is pruned')
    assert.ok(await queue.jobs.get(recent), 'a recent completed job is kept')
    assert.ok(await queue.jobs.get(failed), 'failed jobs are kept for an operator')
  })

  test('webhook prune deletes delivered and dead-lettered deliveries past retention, never queued ones', async () => {
    const db = t.ctx.db.kysely
    const now = clock.now()
    const at = (days: number) => new Date(now.getTime() - days * DAY).toISOString()
    await sql`insert into webhook_endpoints (id, tenant_id, mode, url, event_scope, status, secret_box, created_at, updated_at)
      values ('wh_prune', ${tenant.tenantId}, 'test', 'https://hooks.example/x', 'all', 'active', 'box', ${at(60)}, ${at(60)})`.execute(
      db,
    )
    const delivery = (id: string, status: string, created: string) =>
      sql`insert into webhook_deliveries (id, tenant_id, mode, endpoint_id, event_id, event_type, payload, status, next_attempt_at, created_at, updated_at)
        values (${id}, ${tenant.tenantId}, 'test', 'wh_prune', ${`evt_${id}`}, 'package.created', '{}', ${status}, ${created}, ${created}, ${created})`.execute(
        db,
      )
    const retention = t.ctx.config.webhooks.retentionDays
    await delivery('d_old_delivered', 'delivered', at(retention + 1))
    await delivery('d_old_dead', 'dead_letter', at(retention + 1))
    await delivery('d_old_queued', 'queued', at(retention + 1))
    await delivery('d_new_delivered', 'delivered', at(retention - 1))

    await webhookPruneTask(t.ctx).handler(null, jobContext(clock))

    const { rows } = await sql<{
      id: string
    }>`select id from webhook_deliveries where endpoint_id = 'wh_prune' order by id`.execute(db)
    assert.deepEqual(
      rows.map((r) => r.id),
      ['d_new_delivered', 'd_old_queued'],
    )
  })
})
