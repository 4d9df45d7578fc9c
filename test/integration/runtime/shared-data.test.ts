import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import { describeEachDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { buildZip } from '../../helpers/zip-builder.ts'
import { launch, startPlayer, uploadZip } from '../sessions/runtime-helpers.ts'

/** An ADL conformance-test package: its real manifest, with a stand-in for each file it lists. */
function ctsPackage(name: 'DDMa' | 'DDMb'): Buffer {
  const manifest = fixture('scorm', 'adl-cts-4ed', 'packages', name, 'imsmanifest.xml')
  const files = new Set<string>()
  for (const resource of manifest
    .toString('utf8')
    .matchAll(/<resource\b([^>]*)>([\s\S]*?)<\/resource>/g)) {
    const base = /xml:base="([^"]*)"/.exec(resource[1] ?? '')?.[1] ?? ''
    for (const file of (resource[2] ?? '').matchAll(/<file href\s*=\s*"([^"]+)"/g)) {
      files.add(`${base}${file[1]}`)
    }
  }
  return buildZip([
    { name: 'imsmanifest.xml', data: manifest },
    ...[...files].map((path) => ({ name: path, data: `<!-- ${path} -->` })),
  ])
}

describeEachDatabase('SCORM 2004 shared data (adl.data)', (database) => {
  let t: TestApp
  let tenant: TestTenant
  const packages: Record<string, string> = {}
  before(async () => {
    t = await createTestApp(database())
    tenant = await t.createTenant('growth')
    for (const name of ['DDMa', 'DDMb'] as const) {
      packages[name] = await uploadZip(t, tenant.testKey, ctsPackage(name))
    }
  })
  after(() => t.close())

  /** Launches the package's activity for the learner; returns its adl.data and a committer. */
  async function open(pkg: 'DDMa' | 'DDMb', learner: string, itemId: string) {
    const { launch_url } = await launch(t, tenant.testKey, packages[pkg] as string, learner)
    const player = await startPlayer(t, launch_url)
    const sco = await player.deliver(itemId)
    const shared = sco.delivery.launch_data.sharedData ?? []
    return {
      stores: Object.fromEntries(shared.map((d) => [d.id, d.store])),
      writable: Object.fromEntries(shared.map((d) => [d.id, d.writable !== false])),
      async store(values: Record<string, string>) {
        const res = await sco.post({ seq: 1, fromSeq: 0, values, final: true })
        assert.equal(res.statusCode, 200, res.body)
        return res.json() as { errors: Array<{ element: string }>; ignored: string[] }
      },
    }
  }

  test('what one SCO stores is read by the next SCO that maps the bucket; read-only maps cannot write', async () => {
    const first = await open('DDMa', 'lee@example.com', 'activity_1')
    assert.deepEqual(first.stores, {
      tarID_1: undefined,
      tarID_2: undefined,
      tarID_3: undefined,
      tarID_4: undefined,
    })
    const stored = await first.store({
      'adl.data.0.store': 'from act 1',
      'adl.data.2.store': 'third',
    })
    assert.deepEqual(stored.errors, [])

    const second = await open('DDMa', 'lee@example.com', 'activity_2')
    assert.equal(second.stores.tarID_1, 'from act 1')
    assert.equal(second.stores.tarID_3, 'third')
    assert.equal(second.writable.tarID_1, false)
    const refused = await second.store({ 'adl.data.0.store': 'overwritten?' })
    // Read-only here (the player's SetValue answered 404): the server leaves it out.
    assert.deepEqual(refused.ignored, ['adl.data.0.store'])
    const third = await open('DDMa', 'lee@example.com', 'activity_1')
    assert.equal(third.stores.tarID_1, 'from act 1', 'a refused write changes nothing')
  })

  test('buckets are the learner’s across courses, unless a course keeps them to its attempt', async () => {
    const a = await open('DDMa', 'max@example.com', 'activity_1')
    await a.store({ 'adl.data.0.store': 'system-wide' })
    const other = await open('DDMa', 'noa@example.com', 'activity_1')
    assert.equal(other.stores.tarID_1, undefined, 'another learner sees nothing')

    // DDMb opts out (adlcp:sharedDataGlobalToSystem="false"): it must not see what DDMa stored.
    const b1 = await open('DDMb', 'max@example.com', 'activity_1')
    assert.equal(b1.stores.tarID_1, undefined)
    await b1.store({ 'adl.data.0.store': 'only in this attempt' })
    const b2 = await open('DDMb', 'max@example.com', 'activity_2')
    assert.equal(b2.stores.tarID_1, 'only in this attempt')
    const a2 = await open('DDMa', 'max@example.com', 'activity_2')
    assert.equal(a2.stores.tarID_1, 'system-wide')
  })
})
