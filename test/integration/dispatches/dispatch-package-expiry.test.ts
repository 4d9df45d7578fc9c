import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { dispatchExpiryTask } from '../../../src/jobs/dispatch-expiry.job.ts'
import { ManualClock } from '../../../src/shared/clock.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { uploadGolf } from '../sessions/runtime-helpers.ts'
import { api, createDispatch, dispatchEvents, unzipText } from './dispatch-helpers.ts'

describeEachDatabase('dispatch wrapper package and expiry events', (database) => {
  const clock = new ManualClock('2026-07-01T12:00:00.000Z')
  let t: TestApp
  let tenant: TestTenant
  let pkg: string
  let call: ReturnType<typeof api>
  before(async () => {
    t = await createTestApp(database(), { clock })
    tenant = await t.createTenant()
    pkg = await uploadGolf(t, tenant.testKey, 'RuntimeBasicCalls_SCORM20043rdEdition.zip')
    call = api(t, tenant.testKey)
  })
  after(() => t.close())

  const runExpiryJob = () => {
    const task = dispatchExpiryTask(t.ctx)
    return task.handler(null, {
      jobId: 'job_test',
      attempt: 1,
      maxAttempts: 1,
      signal: new AbortController().signal,
      clock,
    })
  }

  for (const version of ['1.2', '2004'] as const) {
    test(`the SCORM ${version} wrapper is a valid package with one SCO that opens the dispatch frame`, async () => {
      const d = await createDispatch(t, tenant.testKey, { packageId: pkg, name: `Acme ${version}` })
      const res = await call('GET', `/dispatches/${d.id}/package?scorm_version=${version}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.headers['content-type'], 'application/zip')
      assert.match(
        res.headers['content-disposition'] as string,
        new RegExp(
          `attachment; filename="Acme-${version === '1.2' ? '12' : '2004'}-scorm${version === '1.2' ? '12' : '2004'}\\.zip"`,
        ),
      )
      const files = await unzipText(res.rawPayload)
      assert.deepEqual([...files.keys()].sort(), [
        'courseport-dispatch.js',
        'imsmanifest.xml',
        'index.html',
      ])
      const html = files.get('index.html') ?? ''
      const config = JSON.parse(
        /<script type="application\/json" id="courseport-dispatch">(.*?)<\/script>/s.exec(
          html,
        )?.[1] ?? '{}',
      )
      assert.deepEqual(config, {
        frameUrl: d.launchUrl,
        contentOrigin: 'http://127.0.0.1:18081',
        scormVersion: version,
        dispatchId: d.id,
      })
      assert.match(html, /<title>Golf Explained/)

      // The strictest check at hand: our own importer accepts it as a SCORM package.
      const { payload, headers } = multipartFile(res.rawPayload, { filename: 'wrapper.zip' })
      const imported = await t.app.inject({
        method: 'POST',
        url: '/api/v1/packages/upload',
        payload,
        headers: { ...headers, ...bearer(tenant.testKey) },
      })
      assert.equal(imported.statusCode, 201, imported.body)
      const detail = imported.json()
      assert.equal(detail.package.scorm_version, version)
      assert.equal(detail.package.content_type, 'scorm')
      assert.equal(detail.warnings.length, 0, JSON.stringify(detail.warnings))

      // Every export of a dispatch carries the same link.
      const again = await call('GET', `/dispatches/${d.id}/package?scorm_version=${version}`)
      assert.equal((await unzipText(again.rawPayload)).get('index.html'), html)
    })
  }

  test('the default wrapper version is the package version; others answer 400', async () => {
    const d = await createDispatch(t, tenant.testKey, { packageId: pkg, name: 'Default' })
    const res = await call('GET', `/dispatches/${d.id}/package`)
    assert.equal(res.statusCode, 200)
    assert.match((await unzipText(res.rawPayload)).get('imsmanifest.xml') ?? '', /2004 4th Edition/)
    assert.equal(
      (await call('GET', `/dispatches/${d.id}/package?scorm_version=1.3`)).statusCode,
      400,
    )
  })

  test('dispatch.expired is recorded once per passed expiry, also with jobs racing, and again after an extend', async () => {
    const soon = await createDispatch(t, tenant.testKey, {
      packageId: pkg,
      name: 'Soon',
      expiresAt: '2026-07-01T13:00:00Z',
    })
    const later = await createDispatch(t, tenant.testKey, {
      packageId: pkg,
      name: 'Later',
      expiresAt: '2026-08-01T00:00:00Z',
    })
    const gone = await createDispatch(t, tenant.testKey, {
      packageId: pkg,
      name: 'Gone',
      expiresAt: '2026-07-01T13:00:00Z',
    })
    await call('DELETE', `/dispatches/${gone.id}`)
    const expired = async (id: string) =>
      (await dispatchEvents(t, tenant.tenantId, id)).filter((e) => e.type === 'dispatch.expired')

    await runExpiryJob()
    assert.equal((await expired(soon.id)).length, 0, 'not before the expiry')
    clock.set('2026-07-01T13:00:00.000Z')
    await Promise.all([runExpiryJob(), runExpiryJob(), runExpiryJob()])
    await runExpiryJob()
    const events = await expired(soon.id)
    assert.equal(events.length, 1)
    assert.equal(events[0]?.data.expires_at, '2026-07-01T13:00:00.000Z')
    assert.equal(events[0]?.data.status, 'expired')
    assert.equal((await expired(later.id)).length, 0)
    assert.equal((await expired(gone.id)).length, 0, 'a deleted dispatch never expires')

    const extended = await call('POST', `/dispatches/${soon.id}/extend`, {
      expiresAt: '2026-07-02T00:00:00Z',
    })
    assert.equal(extended.json().status, 'active')
    await runExpiryJob()
    assert.equal((await expired(soon.id)).length, 1)
    clock.set('2026-07-02T00:00:01.000Z')
    await runExpiryJob()
    assert.equal((await expired(soon.id)).length, 2, 'the new expiry fires too')
    clock.set('2026-07-01T12:00:00.000Z')
  })
})
