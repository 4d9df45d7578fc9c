import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { describeEachDatabase } from '../helpers/database.ts'
import { type LrsServer, startLrsServer } from './lrs-server.helper.ts'
import { installedSuite, runSuite } from './lrs-suite.helper.ts'

/**
 * ADL's LRS conformance suite against the real server, each version with a credential made for
 * it: the 1.0.3 run uses a credential whose `xapi_version` is 1.0.3, so the requests it sends
 * without X-Experience-API-Version are refused as 1.0.3 (the 2.0 run's, as 2.0.0). A complete
 * run executes every test of the suite; a failing before-hook skips the rest silently, so the
 * count is asserted.
 */
const FULL_RUN = { '2.0.0': 1442, '1.0.3': 1365 } as const

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

  for (const version of ['2.0.0', '1.0.3'] as const) {
    it(`passes every xAPI ${version} test`, { skip, timeout: 900_000 }, async () => {
      if (!('dir' in suite)) return
      const { key, secret } = version === '1.0.3' ? server.legacy : server
      const result = await runSuite(suite.dir, { endpoint: server.endpoint, key, secret }, version)
      console.log(
        `# xAPI ${version}: ${result.passed}/${result.total} passed, ${result.failed} failed`,
      )
      for (const failure of result.failures) console.log(`#   failed: ${failure}`)
      assert.ok(result.total >= FULL_RUN[version], `only ${result.total} tests ran`)
      assert.deepEqual(result.failures, [])
      assert.equal(result.failed, 0)
      assert.equal(result.passed, result.total)
    })
  }
})
