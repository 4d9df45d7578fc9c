/**
 * The egress client's SSRF table, run through quick publish's image_url: every blocked
 * destination fails the request with 422 naming the slide and URL, and no request reaches the
 * HTTPS receiver (which the client would trust: a leak would complete and be counted). The
 * service gets the table's fake DNS, as the egress suite's client does. No rows are written for
 * refused requests, so one database dialect is enough.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import {
  createHttpEgressClient,
  type HttpEgressClient,
} from '../../../src/infra/http-egress/index.ts'
import { QuickPublishService } from '../../../src/modules/publish/quick-publish.service.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts'
import { SSRF_CASES, zoneResolver } from '../../helpers/ssrf-cases.ts'
import { type Receiver, startReceiver, TEST_CA } from '../../unit/http-egress/tls-receiver.ts'

describe('quick publish image_url against the SSRF table', () => {
  let database: TestDatabase
  let t: TestApp
  let receiver: Receiver
  let egress: HttpEgressClient
  let service: QuickPublishService
  const scope = { tenantId: '', mode: 'test' as const }

  before(async () => {
    database = await createTestDatabase('sqlite')
    t = await createTestApp(database)
    scope.tenantId = (await t.createTenant('growth')).tenantId
    receiver = await startReceiver()
    egress = createHttpEgressClient({ resolve: zoneResolver, ca: TEST_CA, timeoutMs: 5_000 })
    service = new QuickPublishService({
      packages: t.ctx.services.packages,
      launches: t.ctx.services.launches,
      egress,
      clock: t.ctx.clock,
      config: t.ctx.config,
      scratchDir: t.dataDir,
    })
  })
  after(async () => {
    await egress.close()
    await receiver.close()
    await t.close()
    await database.dispose()
  })

  test('the table is the egress suite’s (at least 40 cases)', () => {
    assert.ok(SSRF_CASES.length >= 40, `${SSRF_CASES.length} cases`)
  })

  for (const [template, code] of SSRF_CASES) {
    test(`${template} -> ${code}`, async () => {
      const url = template.replace('{p}', String(receiver.port))
      const input = {
        title: 'SSRF probe',
        slides: [
          { title: 'Text', content: 'x' },
          { title: 'Picture', content: 'y', image_url: url },
        ],
      }
      await assert.rejects(service.publish(scope, input), (err) => {
        assert.ok(isAppError(err), String(err))
        assert.equal(err.code, 'unprocessable')
        assert.deepEqual(err.details, { slide: 2, image_url: url, reason: code })
        assert.ok(err.message.startsWith(`Slide 2: the image at ${url} could not be used:`))
        return true
      })
    })
  }

  test('no request reached the receiver and no package was made', async () => {
    assert.deepEqual(receiver.hits, [])
    const { packages } = await t.ctx.services.packages.list(scope, {})
    assert.deepEqual(packages, [])
  })
})
