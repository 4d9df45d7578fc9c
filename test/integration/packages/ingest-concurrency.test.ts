import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { setImmediate as tick } from 'node:timers/promises'
import { ingestSlots } from '../../../src/modules/packages/unpack/index.ts'
import { bearer, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { multipartFile } from '../../helpers/multipart.ts'
import { buildZip, scorm12Manifest } from '../../helpers/zip-builder.ts'

const zip = () =>
  buildZip([
    { name: 'imsmanifest.xml', data: scorm12Manifest() },
    { name: 'index.html', data: '<html><body>hello</body></html>' },
  ])

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 100_000 && !check(); i++) await tick()
  assert.ok(check(), what)
}

describeEachDatabase('concurrent package ingests are bounded', (database) => {
  let t: TestApp
  let tenant: TestTenant
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant()
  })
  after(() => t.close())

  const upload = () => {
    const { payload, headers } = multipartFile(zip())
    return t.app.inject({
      method: 'POST',
      url: '/api/v1/packages/upload',
      payload,
      headers: { ...headers, ...bearer(tenant.testKey) },
    })
  }

  test('beyond 2 at once an upload waits its turn; with the queue full it gets 503 + Retry-After', async () => {
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    // Two long ingests hold both slots (the default concurrency).
    const holders = [ingestSlots.run(() => held), ingestSlots.run(() => held)]
    const waitingUpload = upload()
    await until('the upload waits for a slot', () => ingestSlots.waiting === 1)
    const fillers = Array.from({ length: 31 }, () => ingestSlots.run(() => held))
    assert.equal(ingestSlots.waiting, 32)

    const refused = await upload()
    assert.equal(refused.statusCode, 503, refused.body)
    assert.equal(refused.json().error.code, 'service_unavailable')
    assert.match(refused.json().error.message, /2 at once/)
    assert.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After')

    release()
    const accepted = await waitingUpload
    assert.equal(accepted.statusCode, 201, accepted.body)
    await Promise.all([...holders, ...fillers])
    assert.equal(ingestSlots.running, 0)
  })
})
