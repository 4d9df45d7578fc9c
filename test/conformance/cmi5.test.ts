import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { describeEachDatabase } from '../helpers/database.ts'
import { type Cmi5Server, startCmi5Server } from './cmi5-server.helper.ts'
import { installedLts, runLts } from './cmi5-suite.helper.ts'

/**
 * The cmi5 LMS Test Suite (ADL CATAPULT) against the real server, through Courseport's own
 * adapter (cmi5-lms-adapter.cjs) and Debian's Chromium: package import and refusal, launches,
 * the fetch URL, LMS.LaunchData, the statement rules, moveOn, waive and abandon.
 */
const EXPECTED_TESTS = 87

const suite = await installedLts()
if ('skip' in suite) {
  if (process.env.CI === 'true') throw new Error(`CI=true requires the cmi5 LTS: ${suite.skip}`)
  console.log(`# skipping cmi5 LMS Test Suite: ${suite.skip}`)
}
const skip = 'skip' in suite ? suite.skip : undefined

describeEachDatabase('cmi5 LMS Test Suite', (database) => {
  let server: Cmi5Server
  before(async () => {
    if (skip) return
    server = await startCmi5Server(database().dialect)
  })
  after(async () => {
    await server?.close()
  })

  it('passes every test, waive and abandon included', { skip, timeout: 1_500_000 }, async () => {
    if (!('dir' in suite)) return
    const result = await runLts(suite.dir, server.env)
    console.log(
      `# cmi5 LTS: ${result.passed}/${result.total} passed, ${result.failed} failed, ${result.skipped} skipped`,
    )
    for (const failure of result.failures) console.log(`#   failed: ${failure}`)
    // A suite that cannot start runs nothing: "0 failures" of fewer tests is not a pass.
    assert.equal(result.total, EXPECTED_TESTS, `${result.total} tests ran`)
    assert.deepEqual(result.failures, [])
    assert.equal(result.skipped, 0)
    assert.equal(result.passed, EXPECTED_TESTS)
  })
})
