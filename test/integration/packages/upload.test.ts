import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { listAuditEvents } from '../../../src/modules/events/audit-event.repository.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture, GOLF } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { buildZip } from '../../helpers/zip-builder.ts'

async function uploadMultipart(
  t: TestApp,
  key: string,
  zip: Buffer,
  url = '/api/v1/packages/upload',
) {
  const { payload, headers } = multipartFile(zip, { filename: 'course.zip' })
  return t.app.inject({ method: 'POST', url, payload, headers: { ...headers, ...bearer(key) } })
}

describeEachDatabase('package upload and lifecycle', (database) => {
  let t: TestApp
  let tenant: TestTenant
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant()
  })
  after(() => t.close())

  test('every golf package uploads with its detected version and is listed', async () => {
    for (const [file, expected] of Object.entries(GOLF)) {
      const res = await uploadMultipart(t, tenant.testKey, fixture('scorm', 'golf', file))
      assert.equal(res.statusCode, 201, res.body)
      const body = res.json()
      assert.equal(body.package.scorm_version, expected.version, file)
      assert.equal(body.package.content_type, 'scorm')
      assert.equal(body.versions[0].edition, expected.edition, file)
      assert.equal(body.package.active_version_id, body.versions[0].id)
      assert.ok(body.package.title.length > 0)
      assert.ok(Array.isArray(body.manifest.launches) && body.manifest.launches.length > 0)
    }
    const list = await t.app.inject({ url: '/api/v1/packages', headers: bearer(tenant.testKey) })
    assert.equal(list.statusCode, 200)
    const packages = list.json().packages as Array<Record<string, unknown>>
    assert.equal(packages.length, 4)
    for (const p of packages) {
      for (const field of ['id', 'title', 'status', 'content_type']) {
        assert.equal(typeof p[field], 'string', field)
      }
    }
  })

  test('the list pages with an opaque cursor', async () => {
    const seen = new Set<string>()
    let cursor: string | null = null
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      const res = await t.app.inject({
        url: `/api/v1/packages?limit=3${query}`,
        headers: bearer(tenant.testKey),
      })
      assert.equal(res.statusCode, 200)
      const page = res.json()
      for (const p of page.packages) seen.add(p.id)
      cursor = page.next_cursor
    } while (cursor)
    assert.equal(seen.size, 4)
    const bad = await t.app.inject({
      url: '/api/v1/packages?cursor=nonsense',
      headers: bearer(tenant.testKey),
    })
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().error.code, 'validation_failed')
  })

  test('presigned upload: upload-url, PUT, process', async () => {
    const zip = fixture('scorm', 'golf', 'singlescobasic.zip')
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers: bearer(tenant.testKey),
      payload: {
        tenant_id: tenant.tenantId,
        uploaded_by: 'author@example.com',
        filename: 'basic.zip',
        file_size: zip.length,
      },
    })
    assert.equal(issued.statusCode, 200, issued.body)
    const { presigned_url, required_put_headers, storage_path } = issued.json()
    const put = await t.app.inject({
      method: 'PUT',
      url: new URL(presigned_url).pathname,
      headers: required_put_headers,
      payload: zip,
    })
    assert.equal(put.statusCode, 200, put.body)
    const processed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/process',
      headers: bearer(tenant.testKey),
      payload: {
        tenant_id: tenant.tenantId,
        uploaded_by: 'author@example.com',
        storage_path,
        original_filename: 'basic.zip',
      },
    })
    assert.equal(processed.statusCode, 201, processed.body)
    assert.equal(processed.json().versions[0].uploaded_by, 'author@example.com')
    assert.equal(processed.json().versions[0].original_filename, 'basic.zip')
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/process',
      headers: bearer(tenant.testKey),
      payload: { storage_path },
    })
    assert.equal(again.statusCode, 409)
  })

  test('a tampered or wrong-length PUT is refused', async () => {
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers: bearer(tenant.testKey),
      payload: { filename: 'x.zip', file_size: 10 },
    })
    const path = new URL(issued.json().presigned_url).pathname
    const tampered = await t.app.inject({
      method: 'PUT',
      url: `${path.slice(0, -2)}xx`,
      payload: Buffer.alloc(10),
    })
    assert.equal(tampered.statusCode, 403)
    const tooLong = await t.app.inject({ method: 'PUT', url: path, payload: Buffer.alloc(11) })
    assert.equal(tooLong.statusCode, 400)
    assert.equal(tooLong.json().error.code, 'invalid_request')
  })

  test('tenant_id of another tenant is 403; an unknown storage_path is 404', async () => {
    const wrongTenant = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers: bearer(tenant.testKey),
      payload: { tenant_id: 'ten_someoneelse', filename: 'x.zip', file_size: 10 },
    })
    assert.equal(wrongTenant.statusCode, 403)
    assert.equal(wrongTenant.json().error.code, 'tenant_mismatch')
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/process',
      headers: bearer(tenant.testKey),
      payload: { storage_path: `${tenant.tenantId}/test/uploads/upl_nothing/x.zip` },
    })
    assert.equal(unknown.statusCode, 404)
    assert.equal(unknown.json().error.code, 'upload_not_found')
  })

  test('new version, activate, archive, restore, download — each with its audit event', async () => {
    const first = await uploadMultipart(
      t,
      tenant.liveKey,
      fixture('scorm', 'golf', 'singlesco_scorm12.zip'),
    )
    assert.equal(first.statusCode, 201)
    const pkgId: string = first.json().package.id
    const v1: string = first.json().package.active_version_id

    const second = await uploadMultipart(
      t,
      tenant.liveKey,
      fixture('scorm', 'golf', 'singlescobasic.zip'),
      `/api/v1/packages/${pkgId}/versions`,
    )
    assert.equal(second.statusCode, 201, second.body)
    const v2 = second
      .json()
      .versions.find((v: { version_number: number }) => v.version_number === 2)
    assert.equal(v2.active, false)
    assert.equal(second.json().package.active_version_id, v1)

    const activated = await t.app.inject({
      method: 'POST',
      url: `/api/v1/packages/${pkgId}/versions/${v2.id}/activate`,
      headers: bearer(tenant.liveKey),
    })
    assert.equal(activated.statusCode, 200)
    assert.equal(activated.json().package.active_version_id, v2.id)

    const download = await t.app.inject({
      url: `/api/v1/packages/${pkgId}/download`,
      headers: bearer(tenant.liveKey),
    })
    assert.equal(download.statusCode, 200)
    assert.equal(download.headers['content-type'], 'application/zip')
    assert.ok(download.rawPayload.equals(fixture('scorm', 'golf', 'singlescobasic.zip')))
    const oldZip = await t.app.inject({
      url: `/api/v1/packages/${pkgId}/download?version_id=${v1}`,
      headers: bearer(tenant.liveKey),
    })
    assert.ok(oldZip.rawPayload.equals(fixture('scorm', 'golf', 'singlesco_scorm12.zip')))

    const archived = await t.app.inject({
      method: 'POST',
      url: `/api/v1/packages/${pkgId}/archive`,
      headers: bearer(tenant.liveKey),
    })
    assert.equal(archived.statusCode, 200)
    assert.equal(archived.json().package.status, 'archived')
    const twice = await t.app.inject({
      method: 'POST',
      url: `/api/v1/packages/${pkgId}/archive`,
      headers: bearer(tenant.liveKey),
    })
    assert.equal(twice.statusCode, 409)
    const restored = await t.app.inject({
      method: 'POST',
      url: `/api/v1/packages/${pkgId}/restore`,
      headers: bearer(tenant.liveKey),
    })
    assert.equal(restored.json().package.status, 'active')

    const events = await listAuditEvents(
      t.ctx.db.kysely,
      { tenantId: tenant.tenantId, mode: 'live' },
      pkgId,
    )
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'package.created',
        'package.version_created',
        'package.version_activated',
        'package.archived',
        'package.restored',
      ],
    )
    const activation = events[2]
    assert.equal(activation?.entity_type, 'package')
    assert.equal(activation?.data.version_id, v2.id)
  })

  test('the invalid fixtures are refused with a message an author understands', async () => {
    const expectations: Record<string, RegExp> = {
      'badscorm.zip': /folder|top level|root/i,
      'invalid.zip': /manifest/i,
      'validscorm.zip': /empty|organization|resource/i,
      'validaicc.zip': /AICC/,
    }
    for (const [file, message] of Object.entries(expectations)) {
      const res = await uploadMultipart(t, tenant.testKey, fixture('scorm', 'invalid', file))
      assert.equal(res.statusCode, 422, `${file}: ${res.body}`)
      assert.equal(res.json().error.code, 'invalid_package')
      assert.match(res.json().error.message, message, file)
    }
    const missingOrg = await uploadMultipart(
      t,
      tenant.testKey,
      fixture('scorm', 'invalid', 'singlescobasic_missingorg.zip'),
    )
    assert.equal(missingOrg.statusCode, 201, missingOrg.body)
    assert.ok(missingOrg.json().warnings.some((w: string) => /organization/i.test(w)))
  })

  test('Idempotency-Key replays the first response and refuses a different request', async () => {
    const headers = { ...bearer(tenant.testKey), 'idempotency-key': 'upload-url-1' }
    const payload = { filename: 'a.zip', file_size: 100 }
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers,
      payload,
    })
    const replay = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers,
      payload,
    })
    assert.equal(replay.statusCode, first.statusCode)
    assert.equal(replay.headers['idempotent-replayed'], 'true')
    assert.deepEqual(replay.json(), first.json())
    const different = await t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload-url',
      headers,
      payload: { filename: 'b.zip', file_size: 100 },
    })
    assert.equal(different.statusCode, 409)
    assert.equal(different.json().error.code, 'idempotency_conflict')
  })
})

describeEachDatabase('cmi5 and Tin Can packages', (database) => {
  let t: TestApp
  let tenant: TestTenant
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant()
  })
  after(() => t.close())

  const cmi5 = `<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="https://example.com/courses/safety">
    <title><langstring lang="en-US">Workplace Safety</langstring></title>
    <description><langstring lang="en-US">One unit.</langstring></description>
  </course>
  <au id="https://example.com/au/intro" moveOn="Completed">
    <title><langstring lang="en-US">Introduction</langstring></title>
    <url>intro/index.html</url>
  </au>
</courseStructure>`
  const tincan = `<?xml version="1.0" encoding="utf-8"?>
<tincan xmlns="http://projecttincan.com/tincan.xsd"><activities>
  <activity id="https://example.com/tc/course" type="http://adlnet.gov/expapi/activities/course">
    <name>Tin Can Course</name><launch lang="en-US">index.html</launch>
  </activity></activities></tincan>`

  for (const [kind, files, title] of [
    ['cmi5', { 'cmi5.xml': cmi5, 'intro/index.html': '<p>hi</p>' }, 'Workplace Safety'],
    ['xapi', { 'tincan.xml': tincan, 'index.html': '<p>hi</p>' }, 'Tin Can Course'],
  ] as const) {
    test(`a ${kind} zip is recognised and stored with content_type ${kind}`, async () => {
      const zip = buildZip(Object.entries(files).map(([name, data]) => ({ name, data })))
      const res = await uploadMultipart(t, tenant.testKey, zip)
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.json().package.content_type, kind)
      assert.equal(res.json().package.scorm_version, null)
      assert.equal(res.json().package.title, title)
      const list = await t.app.inject({ url: '/api/v1/packages', headers: bearer(tenant.testKey) })
      assert.ok(list.json().packages.some((p: { content_type: string }) => p.content_type === kind))
    })
  }
})
