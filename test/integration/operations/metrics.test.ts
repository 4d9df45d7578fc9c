import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { type App, buildContentApp } from '../../../src/app.ts'
import { loadConfig } from '../../../src/config.ts'
import { ConfigError } from '../../../src/config-variables.ts'
import { buildMetricsApp } from '../../../src/http/routes/metrics/metrics-app.ts'
import { createQueue } from '../../../src/infra/queue/index.ts'
import { bearer } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { freePort, startCourseport } from '../../helpers/server-process.ts'
import {
  createWebhookTestApp,
  type RoutedReceiver,
  SECRET,
  startRoutedReceiver,
  type WebhookTestApp,
} from '../webhooks/webhook-test-app.ts'

const TOKEN = 'metrics-scrape-token-0123456789abcdef'
const SECRET_IN_PATH = 'tok_s3cr3tValueThatMustNeverShowUp'

/** The value of the one sample named `name` whose labels are exactly `labels`, or undefined. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',')
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m || m[1] !== name) continue
    const have = (m[2] ?? '').match(/\w+="(?:[^"\\]|\\.)*"/g) ?? []
    if (have.sort().join(',') === want) return Number(m[3])
  }
  return undefined
}

describeEachDatabase('/metrics', (database) => {
  let t: WebhookTestApp
  let content: App
  let r: RoutedReceiver
  let tenant: { tenantId: string; testKey: string; liveKey: string }

  before(async () => {
    r = await startRoutedReceiver()
    t = await createWebhookTestApp(database(), {
      env: { METRICS_TOKEN: TOKEN },
      webhooks: { timeoutMs: 5000 },
    })
    content = await buildContentApp(t.ctx)
    tenant = await t.createTenant()
  })
  after(async () => {
    await content.close()
    await t.close()
    await r.close()
  })

  const scrape = (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
    t.app.inject({ url: '/metrics', headers })

  test('a scrape without the token, or with another, is refused and shows nothing', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-token' }, bearer(tenant.testKey)]) {
      const res = await scrape(headers)
      assert.equal(res.statusCode, 401)
      assert.match(String(res.headers['www-authenticate']), /^Bearer/)
      assert.doesNotMatch(res.body, /courseport_|process_/)
    }
  })

  test('after an upload, a launch, commits and a webhook delivery, the series count them by route and outcome', async () => {
    const hook = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: bearer(tenant.testKey),
      payload: { url: r.url('/hook'), secret: SECRET, eventScope: 'all' },
    })
    assert.equal(hook.statusCode, 201, hook.body)

    const { payload, headers } = multipartFile(fixture('scorm', 'golf', 'singlescobasic.zip'))
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload,
      headers: { ...headers, ...bearer(tenant.testKey) },
    })
    assert.equal(upload.statusCode, 201, upload.body)
    const packageId: string = upload.json().package.id

    const launched = await t.app.inject({
      method: 'POST',
      url: `/api/v1/packages/${packageId}/launch`,
      headers: bearer(tenant.testKey),
      payload: { user_id: 'metrics@example.com' },
    })
    assert.equal(launched.statusCode, 200, launched.body)
    const launchUrl = new URL(launched.json().launch_url)
    const sessionId = launchUrl.pathname.split('/').pop() as string
    const launchToken = launchUrl.searchParams.get('token') as string
    const start = await content.inject({
      method: 'POST',
      url: `/runtime/sessions/${sessionId}/start`,
      payload: { token: launchToken },
    })
    assert.equal(start.statusCode, 200, start.body)
    const runtimeToken: string = start.json().runtime_token
    const delivery = await content.inject({
      method: 'POST',
      url: `/runtime/sessions/${sessionId}/deliveries`,
      headers: { authorization: `Bearer ${runtimeToken}` },
      payload: { item_id: start.json().current_item_id },
    })
    assert.equal(delivery.statusCode, 200, delivery.body)
    const deliveryId: string = delivery.json().delivery_id
    const commit = (seq: number, fromSeq: number, token = runtimeToken) =>
      content.inject({
        method: 'POST',
        url: `/runtime/sessions/${sessionId}/commits`,
        headers: { authorization: `Bearer ${token}` },
        payload: {
          delivery_id: deliveryId,
          delta: { seq, fromSeq, values: { 'cmi.core.lesson_location': `p${seq}` }, final: false },
        },
      })
    assert.equal((await commit(1, 0)).json().applied, true)
    assert.equal((await commit(2, 1)).json().applied, true)
    assert.equal((await commit(2, 1)).json().applied, false) // the player resent it
    assert.equal((await commit(9, 8)).statusCode, 409) // a gap
    assert.equal((await commit(3, 2, SECRET_IN_PATH)).statusCode, 401)

    // Paths carrying tokens: a content URL and one no route matches.
    await content.inject({ url: `/c/${SECRET_IN_PATH}/index.html` })
    assert.equal((await t.app.inject({ url: `/nowhere/${SECRET_IN_PATH}` })).statusCode, 404)

    await t.ctx.services.webhooks.deliveries.fanOut()
    await t.worker().runOnce()
    const delivered = r.hitsOf('/hook').length
    assert.ok(delivered >= 1, 'the receiver got the events')

    // A job due a minute ago that no worker takes: the queue's depth and age.
    await createQueue(t.ctx.db).enqueue(t.ctx.db.kysely, {
      task: 'metrics.probe',
      runAt: new Date(Date.now() - 60_000),
    })

    const res = await scrape()
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/)
    assert.equal(res.headers['cache-control'], 'no-store')
    const text = res.body

    const commits = (outcome: string) =>
      sample(text, 'courseport_runtime_commits_total', { outcome })
    assert.equal(commits('applied'), 2)
    assert.equal(commits('duplicate'), 1)
    assert.equal(commits('conflict'), 1)
    assert.equal(commits('refused'), 1)

    const requests = (origin: string, route: string, method: string, statusClass: string) =>
      sample(text, 'courseport_http_request_duration_seconds_count', {
        origin,
        route,
        method,
        status_class: statusClass,
      })
    const commitsRoute = '/runtime/sessions/:sessionId/commits'
    assert.equal(requests('content', commitsRoute, 'POST', '2xx'), 3)
    assert.equal(requests('content', commitsRoute, 'POST', '4xx'), 2)
    assert.equal(requests('api', '/api/v1/packages/upload', 'POST', '2xx'), 1)
    assert.equal(requests('api', '/api/v1/packages/:packageId/launch', 'POST', '2xx'), 1)
    assert.equal(requests('api', 'unmatched', 'GET', '4xx'), 1)
    assert.ok((requests('content', '/c/:token/*', 'GET', '4xx') ?? 0) >= 1, text)
    assert.equal(requests('api', '/metrics', 'GET', '4xx'), 3) // the refused scrapes
    assert.ok(
      (sample(text, 'courseport_http_request_duration_seconds_bucket', {
        origin: 'content',
        route: commitsRoute,
        method: 'POST',
        status_class: '2xx',
        le: '+Inf',
      }) ?? 0) === 3,
    )

    assert.equal(
      sample(text, 'courseport_package_ingest_duration_seconds_count', { outcome: 'ok' }),
      1,
    )
    assert.equal(
      sample(text, 'courseport_webhook_attempts_total', { outcome: 'delivered' }),
      delivered,
    )
    assert.equal(sample(text, 'courseport_webhook_attempt_duration_seconds_count'), delivered)
    assert.match(text, /^# TYPE courseport_conversion_duration_seconds histogram$/m)

    assert.equal(sample(text, 'courseport_queue_jobs', { task: 'metrics.probe', state: 'due' }), 1)
    assert.equal(
      sample(text, 'courseport_queue_jobs', { task: 'metrics.probe', state: 'running' }),
      0,
    )
    const age = sample(text, 'courseport_queue_oldest_due_job_age_seconds', {
      task: 'metrics.probe',
    })
    assert.ok(age !== undefined && age >= 60 && age < 600, `age ${age}`)

    assert.ok(sample(text, 'process_cpu_user_seconds_total') !== undefined)
    assert.match(text, /^nodejs_eventloop_lag_seconds /m)

    for (const secret of [TOKEN, SECRET_IN_PATH, tenant.testKey, launchToken, runtimeToken]) {
      assert.ok(!text.includes(secret), 'no token in the metrics')
    }
    for (const id of [sessionId, packageId, deliveryId, tenant.tenantId]) {
      assert.ok(!text.includes(id), `no raw URL or id in the metrics (${id})`)
    }
  })

  test('without METRICS_TOKEN the API origin has no /metrics; the private listener serves it', async () => {
    const open = await createWebhookTestApp(database())
    try {
      assert.equal((await open.app.inject({ url: '/metrics' })).statusCode, 404)
      const listener = await buildMetricsApp(open.ctx)
      const res = await listener.inject({ url: '/metrics' })
      await listener.close()
      assert.equal(res.statusCode, 200)
      // Its own registry: the other app's commits are not counted here.
      assert.equal(
        sample(res.body, 'courseport_runtime_commits_total', { outcome: 'applied' }),
        undefined,
      )
      assert.equal(
        sample(res.body, 'courseport_queue_jobs', { task: 'metrics.probe', state: 'due' }),
        1,
      )
    } finally {
      await open.close()
    }
  })
})

describeEachDatabase('/metrics of a worker process', (database) => {
  test('courseport worker serves /metrics on WORKER_HEALTH_PORT and METRICS_PORT, with METRICS_TOKEN when set', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cp-metrics-'))
    const [healthPort, metricsPort] = [await freePort(), await freePort()]
    const worker = await startCourseport(
      ['worker'],
      {
        DATA_DIR: dataDir,
        DATABASE_URL: database().url,
        SECRET_KEY: 'metrics-process-test-secret-0123456789abcdef',
        LOG_LEVEL: 'info',
        SHUTDOWN_DRAIN_DELAY_MS: '0',
        WORKER_HEALTH_PORT: String(healthPort),
        METRICS_PORT: String(metricsPort),
        METRICS_TOKEN: TOKEN,
      },
      { ready: 'courseport worker started', port: healthPort },
    )
    try {
      for (const port of [healthPort, metricsPort]) {
        const url = `http://127.0.0.1:${port}/metrics`
        assert.equal((await fetch(url)).status, 401)
        const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })
        assert.equal(res.status, 200)
        const text = await res.text()
        assert.ok(sample(text, 'process_cpu_user_seconds_total') !== undefined)
        assert.match(text, /^# TYPE courseport_queue_jobs gauge$/m)
      }
    } finally {
      assert.equal(await worker.stop(), 0, worker.output())
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

test('METRICS_TOKEN must be a long token; METRICS_PORT is off and METRICS_HOST loopback by default', () => {
  const base = { SECRET_KEY: 'metrics-config-test-secret-0123456789abcdef', DATA_DIR: tmpdir() }
  assert.deepEqual(
    { ...loadConfig(base).metrics },
    { token: undefined, port: undefined, host: '127.0.0.1' },
  )
  for (const bad of ['short', `${'x'.repeat(31)}`, `${'x'.repeat(20)} ${'y'.repeat(20)}`]) {
    assert.throws(
      () => loadConfig({ ...base, METRICS_TOKEN: bad }),
      (err: unknown) => err instanceof ConfigError && err.variable === 'METRICS_TOKEN',
    )
  }
  assert.equal(loadConfig({ ...base, METRICS_TOKEN: TOKEN }).metrics.token, TOKEN)
})
