import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createTestDatabase, DATABASE_TARGETS, type TestDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { type RoundRobinProxy, startRoundRobinProxy } from '../../helpers/round-robin-proxy.ts'
import { freePort, type ServerProcess, startCourseport } from '../../helpers/server-process.ts'
import { type RunningS3, startS3rver } from '../blobs/s3rver.helper.ts'

// The scale-out topology of docs/operations.md on one machine: two `serve --no-worker` behind a
// round-robin proxy (no stickiness), one worker, PostgreSQL and an S3-compatible store.
const postgres = DATABASE_TARGETS.find((target) => target.dialect === 'postgres')
const COMMITS = 40
const KILL_AFTER = 12

/** Sends until an answer other than 502 / a dropped connection comes back, as clients retry. */
async function withRetry(send: () => Promise<Response>): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await send()
      if (res.status !== 502 && res.status !== 503) return res
      await res.body?.cancel()
    } catch (err) {
      if (attempt >= 20) throw err
    }
    await sleep(Math.min(50 * attempt, 500))
  }
}

describe('two API processes and a worker behind a round-robin proxy [postgres]', {
  skip: postgres?.skip,
}, () => {
  let database: TestDatabase
  let s3: RunningS3
  let api: RoundRobinProxy
  let content: RoundRobinProxy
  const processes: ServerProcess[] = []
  let dataDir = ''
  let key = ''

  before(async () => {
    database = await createTestDatabase('postgres')
    s3 = await startS3rver('multi')
    dataDir = mkdtempSync(join(tmpdir(), 'cp-multi-'))
    const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()])
    const [apiA = 0, contentA = 0, apiB = 0, contentB = 0] = ports
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
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    }
    const first = await startCourseport(['serve', '--no-worker'], {
      ...shared,
      PORT: String(apiA),
      CONTENT_PORT: String(contentA),
    })
    processes.push(first)
    key = first.testKey ?? ''
    assert.ok(key, first.output())
    processes.push(
      await startCourseport(['serve', '--no-worker'], {
        ...shared,
        PORT: String(apiB),
        CONTENT_PORT: String(contentB),
      }),
    )
    processes.push(
      await startCourseport(['worker'], shared, { ready: 'courseport worker started' }),
    )
  })
  after(async () => {
    for (const p of processes) await p.stop()
    await api?.close()
    await content?.close()
    await s3?.stop()
    await database?.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('killing one API process mid-way loses no acknowledged commit and no acknowledged upload', async () => {
    const auth = { authorization: `Bearer ${key}` }
    const upload = () => {
      const { payload, headers } = multipartFile(fixture('scorm', 'golf', 'singlescobasic.zip'))
      return withRetry(() =>
        fetch(`${api.url}/api/v1/packages/upload`, {
          method: 'POST',
          headers: { ...headers, ...auth },
          body: new Uint8Array(payload),
        }),
      )
    }
    const first = await upload()
    assert.equal(first.status, 201)
    const packageId = (await first.json()).package.id as string
    const launched = await withRetry(() =>
      fetch(`${api.url}/api/v1/packages/${packageId}/launch`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: 'kim@example.com' }),
      }),
    )
    assert.equal(launched.status, 200)
    const launch = (await launched.json()) as { launch_url: string; session_id: string }
    const launchUrl = new URL(launch.launch_url)
    const sessionId = launch.session_id
    const postContent = (path: string, body: unknown, token?: string) =>
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
    const started = await postContent('start', { token: launchUrl.searchParams.get('token') })
    assert.equal(started.status, 200)
    const start = (await started.json()) as { runtime_token: string; current_item_id: string }
    const delivered = await postContent(
      'deliveries',
      { item_id: start.current_item_id },
      start.runtime_token,
    )
    assert.equal(delivered.status, 200)
    const deliveryId = ((await delivered.json()) as { delivery_id: string }).delivery_id

    // Uploads go on beside the learner's commits.
    const uploads = Array.from({ length: 3 }, () => upload())
    const acknowledged: number[] = []
    for (let seq = 1; seq <= COMMITS; seq++) {
      if (seq === KILL_AFTER) await processes[0]?.stop('SIGKILL')
      const res = await postContent(
        'commits',
        {
          delivery_id: deliveryId,
          delta: {
            seq,
            fromSeq: seq - 1,
            final: false,
            values: {
              'cmi.core.lesson_location': `page-${seq}`,
              'cmi.suspend_data': Array.from({ length: seq }, (_, i) => i + 1).join(','),
            },
          },
        },
        start.runtime_token,
      )
      assert.equal(res.status, 200, await res.clone().text())
      acknowledged.push(seq)
    }
    const uploaded = await Promise.all(uploads)
    const uploadedIds: string[] = []
    for (const res of uploaded) {
      assert.equal(res.status, 201)
      uploadedIds.push((await res.json()).package.id)
    }

    const detail = await withRetry(() =>
      fetch(`${api.url}/api/v1/sessions/${sessionId}`, { headers: auth }),
    )
    const session = (await detail.json()) as { cmi_data: Record<string, string> }
    assert.equal(
      session.cmi_data['cmi.suspend_data'],
      acknowledged.join(','),
      'every acknowledged commit is in the session',
    )
    assert.equal(session.cmi_data['cmi.core.lesson_location'], `page-${COMMITS}`)
    const listed = await withRetry(() => fetch(`${api.url}/api/v1/packages`, { headers: auth }))
    const ids = ((await listed.json()) as { packages: { id: string }[] }).packages.map((p) => p.id)
    for (const id of [packageId, ...uploadedIds]) assert.ok(ids.includes(id), id)
    assert.ok((api.served[1] ?? 0) > 0 && (content.served[0] ?? 0) > 0, 'both processes served')
    assert.equal(processes[1]?.child.exitCode, null, 'the surviving API process is up')
    assert.equal(processes[2]?.child.exitCode, null, 'the worker is up')
  })
})
