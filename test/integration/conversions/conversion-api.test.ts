import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { Worker } from '../../../src/infra/queue/index.ts'
import { taskRegistry } from '../../../src/jobs/registry.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { buildZip } from '../../helpers/zip-builder.ts'
import { oleFile } from '../../unit/conversions/pptx-builder.helper.ts'
import {
  hiddenSlidesDeck,
  officeSkipReason,
  processesMentioning,
  rewritePptx,
} from '../../unit/office/office.helper.ts'
import { readZip } from '../../unit/publish/course-zip.helper.ts'
import {
  downloadPackage,
  getConversion,
  PPTX,
  pageText,
  postConversion,
  rawSlideTexts,
  runJobs,
  silentLogger,
} from './conversion.helper.ts'

const officeMissing = await officeSkipReason()

describeEachDatabase('conversion jobs API', (database) => {
  let t: TestApp
  let tenant: TestTenant
  let dir = ''
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('growth')
    dir = await mkdtemp(join(tmpdir(), 'cp-conv-api-'))
  })
  after(async () => {
    await t.close()
    await rm(dir, { recursive: true, force: true })
  })

  test('createConversion answers 201 with the slide count; the job ends with a hosted package', async () => {
    const res = await postConversion(t, tenant.testKey, `${PPTX}oxs_typical.pptx`)
    assert.equal(res.statusCode, 201, res.body)
    const created = res.json()
    assert.match(created.job_id, /^cnv_[0-9A-Za-z]{20}$/)
    assert.equal(created.status, 'queued')
    assert.equal(created.slide_count, 15)
    assert.equal(created.title, 'Typical Presentation', 'from the file properties')
    assert.equal(created.target_scorm_version, '2004')
    assert.deepEqual(created.progress, { done: 0, total: 15, percent: 0 })
    assert.equal(created.package_id, null)
    assert.equal(created.error, null)

    await runJobs(t)
    const job = await getConversion(t, tenant.testKey, created.job_id)
    assert.equal(job.status, 'completed')
    assert.match(job.package_id, /^pkg_/)
    assert.ok(job.started_at && job.finished_at && job.finished_at >= job.started_at)
    const codes = job.warnings.map((w: { code: string }) => w.code)
    assert.ok(codes.includes('animations'), 'animations are reported as not carried over')

    const pkg = await t.app.inject({
      url: `/api/v1/packages/${job.package_id}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(pkg.json().package.title, 'Typical Presentation')
    assert.equal(pkg.json().versions[0].edition, '2004 4th Edition')
    assert.equal(pkg.json().versions[0].uploaded_by, `conversion:${created.job_id}`)
    const list = await t.app.inject({ url: '/api/v1/packages', headers: bearer(tenant.testKey) })
    assert.ok(list.json().packages.some((p: { id: string }) => p.id === job.package_id))
  })

  test('the title comes from the request, else the first slide; SCORM 1.2 on request', async () => {
    const fromSlide = await postConversion(t, tenant.testKey, `${PPTX}pyp_EDGE_no-core-props.pptx`)
    assert.equal(fromSlide.json().title, 'Minimal Deck')
    const named = await postConversion(t, tenant.testKey, `${PPTX}poi_table_test.pptx`, {
      fields: { title: 'Quarterly numbers', scorm_version: '1.2' },
    })
    assert.equal(named.statusCode, 201, named.body)
    assert.equal(named.json().title, 'Quarterly numbers')
    assert.equal(named.json().target_scorm_version, '1.2')
    await runJobs(t)
    const job = await getConversion(t, tenant.testKey, named.json().job_id)
    const pkg = await t.app.inject({
      url: `/api/v1/packages/${job.package_id}`,
      headers: bearer(tenant.testKey),
    })
    assert.equal(pkg.json().package.scorm_version, '1.2')
    assert.equal(pkg.json().package.title, 'Quarterly numbers')
  })

  test('hidden slides are left out of the course and listed in the warnings', async () => {
    const deck = await hiddenSlidesDeck(join(dir, 'hidden.pptx'), [2, 5])
    const res = await postConversion(t, tenant.testKey, deck)
    assert.equal(res.json().slide_count, 13)
    assert.equal(res.json().hidden_slide_count, 2)
    await runJobs(t)
    const job = await getConversion(t, tenant.testKey, res.json().job_id)
    assert.equal(job.status, 'completed')
    const hidden = job.warnings.find((w: { code: string }) => w.code === 'hidden_slides')
    assert.deepEqual(hidden?.slides, [2, 5])
    const { files } = await downloadPackage(t, tenant.testKey, job.package_id)
    const html = (files.get('index.html') as Buffer).toString('utf8')
    assert.equal(html.match(/<section class="slide/g)?.length, 13)
    const parts = await readZip(deck)
    const textOf = (n: number) =>
      rawSlideTexts(parts.get(`ppt/slides/slide${n}.xml`)?.toString() ?? '')
    const shown = new Set([1, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15].flatMap(textOf))
    const onlyHidden = [2, 5].flatMap(textOf).filter((s) => !shown.has(s))
    assert.ok(onlyHidden.length > 0)
    const text = pageText(html)
    for (const s of onlyHidden) assert.ok(!text.includes(s), `hidden text "${s}" is in the course`)
  })

  test('listConversions pages newest first, filters by status and counts the total', async () => {
    const other = await t.createTenant('growth')
    const ids: string[] = []
    for (const file of ['poi_table_test.pptx', 'poi_SmartArt.pptx', 'pyp_prs-notes.pptx']) {
      ids.push((await postConversion(t, other.testKey, `${PPTX}${file}`)).json().job_id)
    }
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      const page = await t.app.inject({
        url: `/api/v1/conversions?limit=2${query}`,
        headers: bearer(other.testKey),
      })
      assert.equal(page.statusCode, 200, page.body)
      assert.equal(page.json().total, 3)
      seen.push(...page.json().jobs.map((j: { job_id: string }) => j.job_id))
      cursor = page.json().next_cursor
    } while (cursor)
    assert.deepEqual(seen, [...ids].reverse())
    const queued = await t.app.inject({
      url: '/api/v1/conversions?status=queued',
      headers: bearer(other.testKey),
    })
    assert.equal(queued.json().total, 3)
    await runJobs(t)
    const completed = await t.app.inject({
      url: '/api/v1/conversions?status=completed',
      headers: bearer(other.testKey),
    })
    assert.equal(completed.json().total, 3)
    assert.equal(completed.json().jobs.length, 3)
    const none = await t.app.inject({
      url: '/api/v1/conversions?status=queued',
      headers: bearer(other.testKey),
    })
    assert.deepEqual([none.json().total, none.json().jobs], [0, []])
    const bad = await t.app.inject({
      url: '/api/v1/conversions?status=done',
      headers: bearer(other.testKey),
    })
    assert.equal(bad.statusCode, 400)
  })

  test('jobs are visible only to their tenant and mode', async () => {
    const created = await postConversion(t, tenant.testKey, `${PPTX}poi_table_test.pptx`)
    const id = created.json().job_id
    const stranger = await t.createTenant('growth')
    for (const key of [tenant.liveKey, stranger.testKey]) {
      const res = await t.app.inject({ url: `/api/v1/conversions/${id}`, headers: bearer(key) })
      assert.equal(res.statusCode, 404)
      assert.equal(res.json().error.code, 'not_found')
    }
    const list = await t.app.inject({ url: '/api/v1/conversions', headers: bearer(tenant.liveKey) })
    assert.equal(list.json().total, 0)
    await runJobs(t)
  })

  test('files that are not usable presentations are refused with 422, without a job', async () => {
    const sandbox = await t.createTenant() // two conversions a month
    const cases: Array<[string, Buffer, RegExp]> = [
      ['deck.pdf', Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n'), /PDF/],
      ['deck.ppt', oleFile(['PowerPoint Document', 'Current User']), /97-2003/],
      ['deck.pptx', buildZip([{ name: 'hello.txt', data: Buffer.from('hi') }]), /not a PowerPoint/],
      ['deck.pptx', Buffer.from('just some text, not a zip at all'), /not a PowerPoint/],
      ['empty.pptx', Buffer.alloc(0), /empty/],
    ]
    for (const [filename, bytes, message] of cases) {
      const res = await postConversion(t, sandbox.testKey, bytes, { filename })
      assert.equal(res.statusCode, 422, `${filename}: ${res.body}`)
      assert.match(res.json().error.message, message)
    }
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/v1/conversions',
      headers: bearer(sandbox.testKey),
      payload: { file: 'x' },
    })
    assert.equal(json.statusCode, 415)
    const noFile = multipartFile(Buffer.from('x'), { field: 'attachment' })
    const wrongField = await t.app.inject({
      method: 'POST',
      url: '/api/v1/conversions',
      payload: noFile.payload,
      headers: { ...noFile.headers, ...bearer(sandbox.testKey) },
    })
    assert.equal(wrongField.statusCode, 400)
    const badVersion = await postConversion(t, sandbox.testKey, `${PPTX}poi_table_test.pptx`, {
      fields: { scorm_version: '3' },
    })
    assert.equal(badVersion.statusCode, 400)
    assert.match(badVersion.json().error.message, /scorm_version/)
    // None of that used the sandbox allowance: both conversions are still there.
    for (let i = 0; i < 2; i++) {
      const ok = await postConversion(t, sandbox.testKey, `${PPTX}poi_table_test.pptx`)
      assert.equal(ok.statusCode, 201, ok.body)
    }
    await runJobs(t)
  })

  test('a deck with a damaged slide is accepted, then ends failed with a useful error', async () => {
    const deck = await rewritePptx(
      `${PPTX}oxs_typical.pptx`,
      join(dir, 'damaged.pptx'),
      (name, data) => (name === 'ppt/slides/slide3.xml' ? data.subarray(0, 400) : undefined),
    )
    const res = await postConversion(t, tenant.testKey, deck)
    assert.equal(res.statusCode, 201, res.body)
    await runJobs(t)
    const job = await getConversion(t, tenant.testKey, res.json().job_id)
    assert.equal(job.status, 'failed')
    assert.equal(job.package_id, null)
    assert.match(job.error, /damaged or incomplete .*slide3\.xml/)
    assert.ok(job.finished_at)
    // LibreOffice had started alongside the read; it is stopped, not left converting.
    assert.deepEqual(processesMentioning(`courseport-${job.job_id}`), [])
  })

  test('the same Idempotency-Key returns the same job instead of converting twice', async () => {
    const deck = readFileSync(`${PPTX}poi_table_test.pptx`)
    // A client's retry builds the body again: same file and fields, a new multipart boundary.
    const send = () => {
      const { payload, headers } = multipartFile(deck, { filename: 'table.pptx' })
      return t.app.inject({
        method: 'POST',
        url: '/api/v1/conversions',
        payload,
        headers: { ...headers, ...bearer(tenant.testKey), 'idempotency-key': 'conv-retry-1' },
      })
    }
    const first = await send()
    const second = await send()
    assert.equal(first.statusCode, 201)
    assert.equal(second.statusCode, 201)
    assert.equal(second.json().job_id, first.json().job_id)
    assert.equal(second.headers['idempotent-replayed'], 'true')
    await runJobs(t)
  })

  test('progress is reported slide by slide while the job runs', {
    skip: officeMissing,
  }, async () => {
    const res = await postConversion(t, tenant.testKey, `${PPTX}poi_customGeo.pptx`)
    const id = res.json().job_id
    const worker = new Worker(t.ctx.db, taskRegistry(t.ctx), {
      pollIntervalMs: 20,
      logger: silentLogger,
    })
    const observed: number[] = []
    // Progress is sampled while the job runs. The deadline only turns a stuck job into a clear
    // failure: it lies past the render's own limit (CONVERSION_TIMEOUT_SECONDS, default 300).
    const deadline = Date.now() + 360_000
    let last = 'not yet read'
    worker.start()
    try {
      for (;;) {
        const job = await getConversion(t, tenant.testKey, id)
        last = `${job.status} at ${job.progress.done}/${job.progress.total}`
        if (job.status === 'processing') observed.push(job.progress.done)
        if (job.status === 'completed' || job.status === 'failed') break
        if (Date.now() > deadline) {
          assert.fail(`conversion ${id} did not finish within 360 s (last seen: ${last})`)
        }
        await new Promise((r) => setTimeout(r, 25))
      }
    } finally {
      await worker.stop()
    }
    assert.equal((await getConversion(t, tenant.testKey, id)).status, 'completed')
    const between = observed.filter((n) => n > 0 && n < 48)
    assert.ok(between.length > 0, `intermediate progress seen: ${observed.join(',')}`)
    assert.deepEqual(
      observed,
      [...observed].sort((a, b) => a - b),
      'progress never goes back',
    )
  })
})

describeEachDatabase('conversions without LibreOffice', (database) => {
  let t: TestApp
  before(async () => {
    t = await createTestApp(database(), { env: { OFFICE_BINARY: 'none' } })
  })
  after(() => t.close())

  test('the job completes from the presentation text alone and says so', async () => {
    const tenant = await t.createTenant('growth')
    const res = await postConversion(t, tenant.testKey, `${PPTX}oxs_typical.pptx`)
    await runJobs(t)
    const job = await getConversion(t, tenant.testKey, res.json().job_id)
    assert.equal(job.status, 'completed')
    assert.equal(job.rendering, 'text_only')
    const note = job.warnings.find((w: { code: string }) => w.code === 'rendering_unavailable')
    assert.match(note?.message ?? '', /OFFICE_BINARY=none/)
    const { files } = await downloadPackage(t, tenant.testKey, job.package_id)
    assert.deepEqual(
      [...files.keys()].filter((f) => f.endsWith('-slide.jpg')),
      [],
      'no slide pictures',
    )
    const html = (files.get('index.html') as Buffer).toString('utf8')
    assert.equal(html.match(/<section class="slide/g)?.length, 15)
    assert.match(pageText(html), /Typical Presentation/)
  })
})
