import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { ManualClock } from '../../../src/shared/clock.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { rewritePptx } from '../../unit/office/office.helper.ts'
import { getConversion, PPTX, postConversion, runJobs } from './conversion.helper.ts'

const DECK = `${PPTX}poi_table_test.pptx`

describeEachDatabase('sandbox conversion allowance', (database) => {
  let t: TestApp
  let dir = ''
  const clock = new ManualClock('2026-11-20T10:00:00.000Z')
  before(async () => {
    // Rendering is not what is tested here: text-only jobs keep the suite quick.
    t = await createTestApp(database(), { clock, env: { OFFICE_BINARY: 'none' } })
    dir = await mkdtemp(join(tmpdir(), 'cp-allowance-'))
  })
  after(async () => {
    await t.close()
    await rm(dir, { recursive: true, force: true })
  })

  test('two conversions a calendar month; the third gets 429 saying when it resets', async () => {
    const sandbox = await t.createTenant() // the default plan
    for (let i = 0; i < 2; i++) {
      // Test and live keys draw on the same allowance.
      const key = i === 0 ? sandbox.testKey : sandbox.liveKey
      assert.equal((await postConversion(t, key, DECK)).statusCode, 201)
    }
    const third = await postConversion(t, sandbox.testKey, DECK)
    assert.equal(third.statusCode, 429, third.body)
    const { error } = third.json()
    assert.equal(error.code, 'quota_exceeded')
    assert.match(error.message, /2 conversions a month/)
    assert.match(error.message, /resets on 2026-12-01/)
    assert.equal(error.details.resets_at, '2026-12-01T00:00:00.000Z')
    const retryAfter = Number(third.headers['retry-after'])
    assert.equal(retryAfter, (Date.parse('2026-12-01T00:00:00Z') - clock.now().getTime()) / 1000)

    // A job that fails gives its conversion back.
    clock.set('2026-11-25T10:00:00.000Z')
    const other = await t.createTenant()
    const damaged = await rewritePptx(
      `${PPTX}oxs_typical.pptx`,
      join(dir, 'damaged.pptx'),
      (name, data) => (name === 'ppt/slides/slide3.xml' ? data.subarray(0, 400) : undefined),
    )
    const failing = await postConversion(t, other.testKey, damaged)
    assert.equal((await postConversion(t, other.testKey, DECK)).statusCode, 201)
    assert.equal((await postConversion(t, other.testKey, DECK)).statusCode, 429)
    await runJobs(t, clock)
    assert.equal((await getConversion(t, other.testKey, failing.json().job_id)).status, 'failed')
    assert.equal((await postConversion(t, other.testKey, DECK)).statusCode, 201)
    assert.equal((await postConversion(t, other.testKey, DECK)).statusCode, 429)

    // A new month, a new allowance.
    clock.set('2026-12-01T00:00:01.000Z')
    for (let i = 0; i < 2; i++) {
      assert.equal((await postConversion(t, sandbox.testKey, DECK)).statusCode, 201)
    }
    const again = await postConversion(t, sandbox.testKey, DECK)
    assert.equal(again.statusCode, 429)
    assert.match(again.json().error.message, /resets on 2027-01-01/)
    await runJobs(t, clock)
  })

  test('concurrent requests cannot take more than the allowance', async () => {
    const sandbox = await t.createTenant()
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => postConversion(t, sandbox.testKey, DECK)),
    )
    const statuses = answers.map((a) => a.statusCode).sort()
    assert.deepEqual(statuses, [201, 201, 429, 429, 429, 429])
    await runJobs(t, clock)
  })

  test('plans with a larger or no allowance are not held to two', async () => {
    const growth = await t.createTenant('growth')
    for (let i = 0; i < 3; i++) {
      assert.equal((await postConversion(t, growth.testKey, DECK)).statusCode, 201)
    }
    await runJobs(t, clock)
  })
})
