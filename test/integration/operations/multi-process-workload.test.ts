import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { TenantService } from '../../../src/modules/tenants/tenant.service.ts'
import { DELIVERED_EVENT_TYPES } from '../../../src/modules/webhooks/webhook-events.ts'
import { systemClock } from '../../../src/shared/clock.ts'
import { createTestDatabase, DATABASE_TARGETS, type TestDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { type RoundRobinProxy, startRoundRobinProxy } from '../../helpers/round-robin-proxy.ts'
import { freePort, type ServerProcess, startCourseport } from '../../helpers/server-process.ts'
import { processOwningPort } from '../../helpers/socket-owner.ts'
import { type Receiver, startReceiver } from '../../unit/http-egress/tls-receiver.ts'
import { officeSkipReason, PPTX } from '../../unit/office/office.helper.ts'
import { type RunningS3, startS3rver } from '../blobs/s3rver.helper.ts'

// Issue 15.3: the scale-out topology of docs/operations.md on one machine — two
// `serve --no-worker` behind round-robin proxies (no stickiness), two workers, PostgreSQL and an
// S3-compatible store — under a mixed workload, with one API process and one worker SIGKILLed
// mid-way. Deadlines are generous (CI runs two test files at once on two cores); nothing waits
// on the clock except retry backoff, and nothing asserts a duration.
const postgres = DATABASE_TARGETS.find((target) => target.dialect === 'postgres')
const officeMissing = postgres?.skip ? undefined : await officeSkipReason()
const WORKER = join(import.meta.dirname, '../../helpers/worker.child.ts')
const LEARNERS = 6
const COMMITS = 14
const DISPATCH_LEARNERS = 4
/** The kill comes once this many commits are acknowledged (about a third of them). */
const KILL_AT = Math.floor((LEARNERS * COMMITS) / 3)
const DECKS = ['poi_backgrounds.pptx', 'oxs_animation.pptx']
const LATE_DECK = 'poi_table_test.pptx'
const SECRET = 'multi-process-webhook-secret'

/** Sends until an answer other than 502/503 or a dropped connection comes back, as clients do. */
async function withRetry(send: () => Promise<Response>): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await send()
      if (res.status !== 502 && res.status !== 503) return res
      await res.body?.cancel()
    } catch (err) {
      if (attempt >= 20) throw err
    }
    if (attempt >= 40) throw new Error('still 502/503 after 40 attempts')
    await sleep(Math.min(50 * attempt, 500))
  }
}

async function until<T>(what: string, check: () => Promise<T | undefined>, ms: number) {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(100)
  }
}

describe('two API processes and two workers under a mixed workload, one of each SIGKILLed [postgres]', {
  skip: postgres?.skip,
  timeout: 300_000,
}, () => {
  let database: TestDatabase
  let s3: RunningS3
  let receiver: Receiver
  let api: RoundRobinProxy
  let content: RoundRobinProxy
  const apis: ServerProcess[] = []
  const workers: ServerProcess[] = []
  let dataDir = ''
  let key = ''
  /** While set, the receiver keeps requests unanswered (to kill a worker with one in flight). */
  let holding = false
  const held: Array<{ port: number; res: ServerResponse }> = []

  before(async () => {
    const t0 = Date.now()
    database = await createTestDatabase('postgres')
    s3 = await startS3rver('multi')
    dataDir = mkdtempSync(join(tmpdir(), 'cp-multi-load-'))
    receiver = await startReceiver((req, res) => {
      if (holding) return void held.push({ port: req.socket.remotePort ?? 0, res })
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
    const [apiA = 0, contentA = 0, apiB = 0, contentB = 0] = await Promise.all(
      Array.from({ length: 4 }, () => freePort()),
    )
    api = await startRoundRobinProxy([apiA, apiB])
    content = await startRoundRobinProxy([contentA, contentB])
    const shared = {
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      STORAGE_URL: 's3://multi/cp',
      AWS_ENDPOINT_URL: s3.endpoint,
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
      SECRET_KEY: 'multi-process-test-secret-0123456789abcdef',
      PUBLIC_URL: `http://localhost:${api.port}`,
      CONTENT_URL: content.url,
      CONTENT_ORIGINS: 'single',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '0',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      // Test speeds (all settings of docs/operations.md): fan-out every second, a killed
      // worker's conversion taken over after 4 s, the receiver on loopback allowed.
      EVENT_FANOUT_INTERVAL: '1',
      JOB_LEASE_SECONDS: '4',
      WORKER_POLL_MS: '100',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      EGRESS_ALLOW_ADDRESSES: '127.0.0.1',
      CONVERSION_TIMEOUT_SECONDS: '120',
      CONVERSION_CONCURRENCY: '1',
    }
    // The tenant exists before any process starts (the test database is migrated already), so
    // all four processes start at once.
    const tenants = new TenantService(database.db.kysely, systemClock)
    const tenant = await tenants.createTenant({ name: 'Multi-process', plan: 'growth' })
    key = tenant.testKey.key
    // Webhook timings only tests may shorten (options, never environment): an attempt times out
    // after 5 s and its lease ends 2 s later, so a killed worker's delivery is retried soon.
    const timings = JSON.stringify({ timeoutMs: 5000, leaseMarginSeconds: 2, senderBudgetMs: 2000 })
    const started = await Promise.all([
      ...[
        [apiA, contentA],
        [apiB, contentB],
      ].map(([port, contentPort]) =>
        startCourseport(
          ['serve', '--no-worker'],
          { ...shared, PORT: String(port), CONTENT_PORT: String(contentPort) },
          { timeoutMs: 90_000 },
        ),
      ),
      ...[0, 1].map(() =>
        startCourseport([timings], shared, {
          entry: WORKER,
          ready: 'courseport worker started',
          timeoutMs: 90_000,
        }),
      ),
    ])
    apis.push(...started.slice(0, 2))
    workers.push(...started.slice(2))
    console.log(`# four processes ready ${((Date.now() - t0) / 1000).toFixed(1)} s after the start`)
  })

  after(async () => {
    holding = false
    for (const h of held.splice(0)) h.res.destroy()
    for (const p of [...apis, ...workers]) await p.stop()
    await api?.close()
    await content?.close()
    await receiver?.close()
    await s3?.stop()
    await database?.dispose()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  test('every acknowledged commit is stored, every event delivered, every job done, the survivors never fail', async () => {
    const auth = { authorization: `Bearer ${key}` }
    /** A JSON API call through the API proxy; the same Idempotency-Key on every retry. */
    const call = (method: string, path: string, body?: unknown) => {
      const idempotency = method === 'POST' ? { 'idempotency-key': randomUUID() } : undefined
      return withRetry(() =>
        fetch(`${api.url}/api/v1${path}`, {
          method,
          headers: {
            ...auth,
            ...idempotency,
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      )
    }
    const json = async <T>(res: Response, status: number): Promise<T> => {
      const text = await res.text()
      assert.equal(res.status, status, text)
      return JSON.parse(text) as T
    }

    const hook = await json<{ webhook: { id: string } }>(
      await call('POST', '/webhooks', {
        url: `https://127.0.0.1:${receiver.port}/hook`,
        secret: SECRET,
        eventScope: 'all',
      }),
      201,
    )

    /** Presigned upload: the URL from the API, the PUT straight to S3, processing by the API. */
    const presignedUpload = async (name: string) => {
      const zip = fixture('scorm', 'golf', name)
      const issued = await json<{
        presigned_url: string
        required_put_headers: Record<string, string>
        storage_path: string
      }>(await call('POST', '/packages/upload-url', { filename: name, file_size: zip.length }), 200)
      assert.ok(issued.presigned_url.startsWith(s3.endpoint), issued.presigned_url)
      const put = await fetch(issued.presigned_url, {
        method: 'PUT',
        headers: issued.required_put_headers,
        body: new Uint8Array(zip),
      })
      assert.equal(put.status, 200)
      const processed = await call('POST', '/packages/process', {
        storage_path: issued.storage_path,
      })
      return (await json<{ package: { id: string } }>(processed, 201)).package.id
    }
    const convert = async (deck: string) => {
      const { payload, headers } = multipartFile(readFileSync(join(PPTX, deck)), { filename: deck })
      const idempotency = { 'idempotency-key': randomUUID() }
      const res = await withRetry(() =>
        fetch(`${api.url}/api/v1/conversions`, {
          method: 'POST',
          headers: { ...headers, ...auth, ...idempotency },
          body: new Uint8Array(payload),
        }),
      )
      return (await json<{ job_id: string }>(res, 201)).job_id
    }

    const packageId = await presignedUpload('singlescobasic.zip')
    const dispatch = await json<{ id: string; launchUrl: string }>(
      await call('POST', '/dispatches', { packageId, name: 'Multi-process' }),
      201,
    )
    const conversions = officeMissing ? [] : await Promise.all(DECKS.map(convert))

    /** Runtime calls through the content proxy: consecutive calls alternate between processes. */
    const runtime = (sessionId: string, path: string, body: unknown, token?: string) =>
      withRetry(() =>
        fetch(`${content.url}/runtime/sessions/${sessionId}/${path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(token && { authorization: `Bearer ${token}` }),
          },
          body: JSON.stringify(body),
        }),
      )
    const acknowledged = new Map<string, number[]>()
    let acked = 0
    /** Opens the launch, then commits `commits` times; the last commit passes and ends it. */
    const learn = async (launchUrl: string, sessionId: string, commits: number) => {
      const token = new URL(launchUrl).searchParams.get('token')
      const start = await json<{ runtime_token: string; current_item_id: string }>(
        await runtime(sessionId, 'start', { token }),
        200,
      )
      const delivery = await json<{ delivery_id: string }>(
        await runtime(
          sessionId,
          'deliveries',
          { item_id: start.current_item_id },
          start.runtime_token,
        ),
        200,
      )
      const mine: number[] = []
      acknowledged.set(sessionId, mine)
      for (let seq = 1; seq <= commits; seq++) {
        const last = seq === commits
        const values: Record<string, string> = {
          'cmi.core.lesson_location': `page-${seq}`,
          'cmi.suspend_data': [...mine, seq].join(','),
        }
        if (last) values['cmi.core.lesson_status'] = 'passed'
        const res = await runtime(
          sessionId,
          'commits',
          {
            delivery_id: delivery.delivery_id,
            delta: { seq, fromSeq: seq - 1, final: last, values },
          },
          start.runtime_token,
        )
        assert.equal(res.status, 200, `${sessionId} seq ${seq}: ${await res.clone().text()}`)
        await res.body?.cancel()
        mine.push(seq)
        acked++
      }
    }
    const learner = async (i: number) => {
      const launch = await json<{ launch_url: string; session_id: string }>(
        await call('POST', `/packages/${packageId}/launch`, {
          user_id: `learner-${i}@example.com`,
        }),
        200,
      )
      await learn(launch.launch_url, launch.session_id, COMMITS)
    }
    const dispatchLearner = async (i: number) => {
      const token = new URL(dispatch.launchUrl).searchParams.get('token')
      const res = await withRetry(() =>
        fetch(`${content.url}/dispatch/${dispatch.id}/launch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            token,
            origin: 'https://lms.example.org',
            learner_id: `lms-${i}`,
          }),
        }),
      )
      const launched = await json<{ launch_url: string; session_id: string }>(res, 200)
      await learn(launched.launch_url, launched.session_id, 3)
    }

    // The kill: once a third of the commits are acknowledged, hold the receiver's answers, make
    // two more events (dispatch.created), and SIGKILL the worker holding a delivery in flight (so
    // one delivery is certainly sent again) together with API process A.
    const killed: { worker?: ServerProcess; pending?: number } = {}
    const kill = async () => {
      await until(
        'a third of the commits',
        async () => (acked >= KILL_AT ? true : undefined),
        120_000,
      )
      holding = true
      for (const name of ['Kill 1', 'Kill 2']) {
        await json(await call('POST', '/dispatches', { packageId, name }), 201)
      }
      const pids = workers.map((w) => w.child.pid ?? 0)
      const owner = await until(
        'a worker with a delivery in flight',
        async () => {
          for (const h of held) {
            const pid = await processOwningPort(h.port, pids)
            if (pid) return pid
          }
          return undefined
        },
        60_000,
      )
      killed.worker = workers.find((w) => w.child.pid === owner)
      killed.pending = held.length
      await Promise.all([apis[0]?.stop('SIGKILL'), killed.worker?.stop('SIGKILL')])
      holding = false
      for (const h of held.splice(0)) {
        if (!h.res.destroyed) h.res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      }
    }

    const started = Date.now()
    const killing = kill()
    await Promise.all([
      ...Array.from({ length: LEARNERS }, (_, i) => learner(i)),
      ...Array.from({ length: DISPATCH_LEARNERS }, (_, i) =>
        sleep(i * 300).then(() => dispatchLearner(i)),
      ),
      presignedUpload('singlesco_scorm12.zip'),
    ])
    await killing
    // After the kill, on the survivors only: one more upload and one more conversion.
    const late = await presignedUpload('singlescobasic.zip')
    if (!officeMissing) conversions.push(await convert(LATE_DECK))

    // Every acknowledged commit is stored (read back through the surviving process).
    for (const [sessionId, seqs] of acknowledged) {
      const session = await json<{ cmi_data: Record<string, string> }>(
        await call('GET', `/sessions/${sessionId}`),
        200,
      )
      assert.equal(session.cmi_data['cmi.suspend_data'], seqs.join(','), sessionId)
      assert.equal(session.cmi_data['cmi.core.lesson_location'], `page-${seqs.at(-1)}`)
    }
    assert.equal(acknowledged.size, LEARNERS + DISPATCH_LEARNERS)
    const listed = await json<{ packages: { id: string }[] }>(
      await call('GET', '/packages?limit=100'),
      200,
    )
    const ids = listed.packages.map((p) => p.id)
    for (const id of [packageId, late]) assert.ok(ids.includes(id), id)

    // Every conversion completes, rendered by LibreOffice, though a worker died.
    for (const id of conversions) {
      const done = await until(
        `conversion ${id}`,
        async () => {
          const job = await json<{
            status: string
            rendering: string
            package_id: string
            error: unknown
          }>(await call('GET', `/conversions/${id}`), 200)
          return job.status === 'completed' || job.status === 'failed' ? job : undefined
        },
        180_000,
      )
      assert.equal(done.status, 'completed', JSON.stringify(done))
      assert.equal(done.rendering, 'libreoffice')
      assert.match(done.package_id, /^pkg_/)
    }

    // Every deliverable event reaches the receiver, under one delivery_id, at least once.
    const db = database.db.kysely
    const events = await db
      .selectFrom('audit_events')
      .select(['id', 'type'])
      .where('type', 'in', [...DELIVERED_EVENT_TYPES])
      .execute()
    assert.ok(events.length >= LEARNERS + DISPATCH_LEARNERS + 3, `${events.length} events`)
    const deliveries = await until(
      'every event delivered',
      async () => {
        const rows = await db
          .selectFrom('webhook_deliveries')
          .select(['id', 'event_id', 'status'])
          .where('endpoint_id', '=', hook.webhook.id)
          .execute()
        const done = rows.filter((r) => r.status === 'delivered')
        return rows.length === events.length && done.length === rows.length ? rows : undefined
      },
      180_000,
    )
    const byEvent = new Map(deliveries.map((d) => [d.event_id, d.id]))
    assert.equal(byEvent.size, events.length, 'one delivery per event')
    const hits = new Map<string, Array<{ event: string; delivery_id: string }>>()
    for (const hit of receiver.hits) {
      const id = String(hit.headers['x-delivery-id'])
      const body = JSON.parse(hit.body) as { event: string; delivery_id: string }
      hits.set(id, [...(hits.get(id) ?? []), body])
    }
    let resent = 0
    for (const event of events) {
      const id = byEvent.get(event.id)
      const received = id ? hits.get(id) : undefined
      assert.ok(received && received.length >= 1, `${event.type} ${event.id} never received`)
      for (const body of received) {
        assert.equal(body.delivery_id, id, 'X-Delivery-ID and delivery_id agree on every attempt')
        assert.equal(body.event, event.type)
      }
      if (received.length > 1) resent++
    }
    assert.ok(resent >= 1, 'the delivery in flight on the killed worker was sent again')

    // Every job completes: conversions done (above), deliveries done (above), and no job failed
    // (a sender run superseded before its worker died ends completed with a note: the run that
    // replaced it did its work). A conversion reads completed just before its job row does: wait
    // for the rows.
    const jobs = await until(
      'the conversion jobs to be recorded completed',
      async () => {
        const rows = await db
          .selectFrom('jobs')
          .select(['task', 'status', 'job_key', 'last_error'])
          .execute()
        const open = rows.filter((j) => j.task === 'conversion.run' && j.status !== 'completed')
        return open.length === 0 ? rows : undefined
      },
      60_000,
    )
    assert.deepEqual(
      jobs.filter((j) => j.status === 'failed'),
      [],
      'no job failed',
    )
    const superseded = jobs.filter((j) => /superseded/.test(j.last_error ?? '')).length
    assert.equal(
      jobs.filter((j) => j.task === 'conversion.run').length,
      conversions.length,
      'one job per conversion',
    )

    // No request answered by (or sent to) the surviving processes failed.
    for (const [name, proxy] of [
      ['API', api],
      ['content', content],
    ] as const) {
      const survivor = proxy.log.filter((r) => r.target === 1)
      const bad = survivor.filter((r) => r.status === 'failed' || r.status >= 500)
      assert.deepEqual(bad, [], `${name} requests to the surviving process that failed`)
      assert.ok(
        proxy.log.some((r) => r.target === 0),
        `${name}: process A served too`,
      )
    }
    assert.equal(apis[0]?.child.signalCode, 'SIGKILL')
    assert.equal(killed.worker?.child.signalCode, 'SIGKILL')
    assert.equal(apis[1]?.child.exitCode, null, 'the surviving API process is up')
    assert.ok(workers.some((w) => w.child.exitCode === null && w.child.signalCode === null))
    console.log(
      `# ${acked} commits, ${events.length} events (${resent} sent twice, ${killed.pending} held at the kill), ` +
        `${superseded} superseded sender run(s), ` +
        `${conversions.length} conversions, ${api.log.length + content.log.length} proxied requests; ` +
        `workload ${((Date.now() - started) / 1000).toFixed(1)} s`,
    )
  })
})
