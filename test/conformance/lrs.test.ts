import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { describeEachDatabase } from '../helpers/database.ts'
import { type LrsServer, startLrsServer } from './lrs-server.helper.ts'
import { installedSuite, runSuite } from './lrs-suite.helper.ts'

/**
 * ADL's LRS conformance suite against the real server. Under 1.0.3 three tests cannot pass
 * together with their 2.0 twins: a request without X-Experience-API-Version must be answered
 * with version header "1.0.3" by one suite and "2.0.0" by the other; we answer 2.0.0.
 */
const KNOWN_1_0_3 = [
  /should fail when Statement (GET|POST|PUT) without header "X-Experience-API-Version"/,
]

const suite = await installedSuite()
if ('skip' in suite) {
  if (process.env.CI === 'true') throw new Error(`CI=true requires the LRS suite: ${suite.skip}`)
  console.log(`# skipping LRS conformance: ${suite.skip}`)
}
const skip = 'skip' in suite ? suite.skip : undefined

describeEachDatabase('ADL LRS conformance suite', (database) => {
  let server: LrsServer
  before(async () => {
    if (skip) return
    server = await startLrsServer(database().dialect)
  })
  after(async () => {
    await server?.close()
  })

  it('passes every xAPI 2.0.0 test', { skip, timeout: 900_000 }, async () => {
    if (!('dir' in suite)) return
    const result = await runSuite(suite.dir, server, '2.0.0')
    console.log(`# xAPI 2.0.0: ${result.passed}/${result.total} passed, ${result.failed} failed`)
    for (const failure of result.failures) console.log(`#   failed: ${failure}`)
    // A failing before-hook silently skips the rest: a complete run has ~1 442 tests.
    assert.ok(result.total >= 1400, `only ${result.total} tests ran`)
    assert.equal(result.failed, 0)
    assert.equal(result.passed, result.total)
  })

  it('passes every xAPI 1.0.3 test but the three that contradict 2.0', {
    skip,
    timeout: 900_000,
  }, async () => {
    if (!('dir' in suite)) return
    const result = await runSuite(suite.dir, server, '1.0.3')
    console.log(`# xAPI 1.0.3: ${result.passed}/${result.total} passed, ${result.failed} failed`)
    for (const failure of result.failures) console.log(`#   failed: ${failure}`)
    assert.ok(result.total >= 1300, `only ${result.total} tests ran`)
    const unexpected = result.failures.filter((f) => !KNOWN_1_0_3.some((k) => k.test(f)))
    assert.deepEqual(unexpected, [])
    assert.ok(result.failed <= 3, `${result.failed} failed`)
    assert.equal(result.passed + result.failed, result.total)
  })
})
