import assert from 'node:assert/strict'
import { createWriteStream } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createBlobStore } from '../../../src/infra/blobs/create-blob-store.ts'
import { inspectPackage, storePackageFiles } from '../../../src/modules/packages/unpack/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { scorm12Manifest, scratchDir } from '../../helpers/zip-builder.ts'

const FIXTURES = fileURLToPath(new URL('../../../../shared/fixtures/scorm/', import.meta.url))
const golf = (name: string) => join(FIXTURES, 'golf', name)
const invalid = (name: string) => join(FIXTURES, 'invalid', name)

let scratch: Awaited<ReturnType<typeof scratchDir>>
before(async () => {
  scratch = await scratchDir('courseport-inspect-')
})
after(async () => {
  await scratch.cleanup()
})

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise
  } catch (err) {
    assert.ok(isAppError(err), `expected an AppError, got ${String(err)}`)
    return { code: err.code, message: err.message }
  }
  assert.fail('the package was accepted')
}

describe('the golf example courses are recognised', () => {
  const expected = [
    [
      'RuntimeBasicCalls_SCORM20043rdEdition.zip',
      '2004',
      '3rd',
      'Golf Explained - Run-time Basic Calls',
      1,
    ],
    ['RuntimeMinimumCalls_SCORM12.zip', '1.2', null, 'Golf Explained - Minimum Run-time Calls', 18],
    ['singlesco_scorm12.zip', '1.2', null, 'Golf Explained - CP Single SCO', 1],
    ['singlescobasic.zip', '1.2', null, 'Golf Explained - Run-time Basic Calls', 1],
  ] as const
  for (const [file, version, edition, title, launches] of expected) {
    test(`${file}: SCORM ${version}${edition ? ` ${edition} Edition` : ''}, "${title}"`, async () => {
      const summary = await inspectPackage(golf(file))
      assert.equal(summary.contentType, 'scorm')
      assert.equal(summary.scormVersion, version)
      assert.equal(summary.edition, edition)
      assert.equal(summary.title, title)
      assert.equal(summary.launches.length, launches)
      assert.deepEqual(summary.warnings, [])
      assert.ok(summary.files.includes('imsmanifest.xml'))
      assert.ok(summary.totalBytes > 0)
      for (const launch of summary.launches) {
        assert.ok(
          launch.path && summary.files.includes(launch.path),
          `${launch.path} is in the zip`,
        )
      }
      // Stored in the database and returned by the API as JSON: must survive a round trip.
      assert.deepEqual(JSON.parse(JSON.stringify(summary)), summary)
    })
  }

  test('single-SCO courses launch shared/launchpage.html', async () => {
    const summary = await inspectPackage(golf('singlescobasic.zip'))
    assert.deepEqual(summary.launches[0], {
      id: 'item_1',
      title: 'Golf Explained',
      kind: 'sco',
      organizationId: 'golf_sample_default_org',
      resourceId: 'resource_1',
      href: 'shared/launchpage.html',
      path: 'shared/launchpage.html',
    })
  })

  test('item parameters are joined to the launch URL (18-SCO course)', async () => {
    const summary = await inspectPackage(golf('RuntimeMinimumCalls_SCORM12.zip'))
    const quiz = summary.launches.find((l) => l.id === 'playing_quiz_item')
    assert.equal(quiz?.href, 'shared/assessmenttemplate.html?questions=Playing')
    assert.equal(quiz?.path, 'shared/assessmenttemplate.html')
    const org = summary.scorm?.organizations[0]
    assert.equal(org?.items.length, 4)
    assert.equal(org?.items[0]?.title, 'Playing the Game')
    assert.equal(org?.items[0]?.launchHref, null)
    assert.equal(org?.items[0]?.children.length, 6)
  })

  test('the 2004 course keeps its sequencing for the engine', async () => {
    const summary = await inspectPackage(golf('RuntimeBasicCalls_SCORM20043rdEdition.zip'))
    const org = summary.scorm?.organizations[0]
    assert.deepEqual(org?.sequencing, { controlMode: { choice: true, flow: true } })
    assert.equal(org?.objectivesGlobalToSystem, false)
    assert.deepEqual(org?.items[0]?.sequencing, {
      deliveryControls: { completionSetByContent: true, objectiveSetByContent: true },
    })
  })
})

describe('the invalid example packages are refused or handled', () => {
  test('badscorm.zip: manifest only in a sub-folder', async () => {
    const { code, message } = await refusal(inspectPackage(invalid('badscorm.zip')))
    assert.equal(code, 'invalid_package')
    assert.match(
      message,
      /imsmanifest.xml is inside the folder 'badscorm\/', but it must be at the top level/,
    )
  })

  test('invalid.zip: no manifest at all', async () => {
    const { code, message } = await refusal(inspectPackage(invalid('invalid.zip')))
    assert.equal(code, 'invalid_package')
    assert.match(message, /no imsmanifest.xml at its top level, so it is not a SCORM package/)
  })

  test('validscorm.zip: a manifest that is only an XML declaration', async () => {
    const { code, message } = await refusal(inspectPackage(invalid('validscorm.zip')))
    assert.equal(code, 'invalid_package')
    assert.match(message, /^imsmanifest.xml: the file is empty/)
  })

  test('validaicc.zip: AICC is not supported', async () => {
    const { code, message } = await refusal(inspectPackage(invalid('validaicc.zip')))
    assert.equal(code, 'invalid_package')
    assert.match(message, /AICC course.*AICC packages are not supported/)
  })

  test('singlescobasic_missingorg.zip: an organization is built from the SCO resource', async () => {
    const summary = await inspectPackage(
      invalid('singlescobasic_missingorg.zip'),
      {},
      {
        fallbackTitle: 'singlescobasic_missingorg',
      },
    )
    assert.equal(summary.scormVersion, '1.2')
    assert.equal(summary.title, 'singlescobasic_missingorg')
    assert.equal(summary.scorm?.organizationGenerated, true)
    assert.equal(summary.launches.length, 1)
    assert.equal(summary.launches[0]?.href, 'sso/launchpage.html')
    assert.match(summary.warnings.join('\n'), /no organization .* built from its 1 SCO resource/)
  })
})

describe('inspect first, store second', () => {
  test('an accepted package is stored file by file, all of them', async () => {
    const zip = golf('RuntimeBasicCalls_SCORM20043rdEdition.zip')
    const summary = await inspectPackage(zip)
    const target = join(scratch.dir, 'store-golf')
    const result = await storePackageFiles(zip, summary, {}, async (path, stream) => {
      const dest = join(target, path)
      await mkdir(dirname(dest), { recursive: true })
      await pipeline(stream, createWriteStream(dest))
    })
    assert.equal(result.fileCount, summary.files.length)
    assert.equal(result.totalBytes, summary.totalBytes)
    const manifest = await readFile(join(target, 'imsmanifest.xml'), 'utf8')
    assert.match(manifest, /2004 3rd Edition/)
  })

  test('a hostile zip with a valid manifest is refused at inspection, before any write', async () => {
    const zip = await scratch.zip('slip-with-manifest.zip', [
      { name: 'imsmanifest.xml', data: scorm12Manifest() },
      { name: 'index.html', data: '<p>hi</p>' },
      { name: '../../outside.html', data: 'evil' },
    ])
    const { message } = await refusal(inspectPackage(zip))
    assert.match(message, /'\.\.\/\.\.\/outside.html', which points outside the package/)
  })

  test('a launch file missing from the zip is named', async () => {
    const zip = await scratch.zip('nolaunch.zip', [
      { name: 'imsmanifest.xml', data: scorm12Manifest('start.html') },
    ])
    const { code, message } = await refusal(inspectPackage(zip))
    assert.equal(code, 'invalid_package')
    assert.match(
      message,
      /launch file 'start.html' of the item 'i1' \("Lesson"\) is not in the zip/,
    )
  })

  test('a launch file differing only in case gets a hint', async () => {
    const zip = await scratch.zip('case.zip', [
      { name: 'imsmanifest.xml', data: scorm12Manifest('Index.html') },
      { name: 'index.html', data: 'x' },
    ])
    const { message } = await refusal(inspectPackage(zip))
    assert.match(message, /The zip has 'index.html'; file names are case-sensitive/)
  })

  test('a DOCTYPE in the manifest is refused', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>${scorm12Manifest().replace('<?xml version="1.0"?>', '')}`
    const zip = await scratch.zip('doctype.zip', [
      { name: 'imsmanifest.xml', data: bomb },
      { name: 'index.html', data: 'x' },
    ])
    const { message } = await refusal(inspectPackage(zip))
    assert.match(message, /DOCTYPE or ENTITY declaration/)
  })

  test('storing a zip that changed since inspection fails', async () => {
    const zip = await scratch.zip('changing.zip', [
      { name: 'imsmanifest.xml', data: scorm12Manifest() },
      { name: 'index.html', data: 'x' },
    ])
    const summary = await inspectPackage(zip)
    await scratch.zip('changing.zip', [
      { name: 'imsmanifest.xml', data: scorm12Manifest() },
      { name: 'index.html', data: 'x' },
      { name: 'extra.js', data: 'y' },
    ])
    const written: string[] = []
    await assert.rejects(
      storePackageFiles(zip, summary, {}, async (path, stream) => {
        stream.resume()
        await new Promise((r) => stream.on('end', r))
        written.push(path)
      }),
      /changed after inspection/,
    )
    assert.deepEqual(written, ['imsmanifest.xml', 'index.html'])
  })

  test('cmi5 and Tin Can zips are recognised', async () => {
    const cmi5 = await scratch.zip('cmi5.zip', [
      {
        name: 'cmi5.xml',
        data: `<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
          <course id="https://example.com/course/1"><title><langstring lang="en">Safety</langstring></title>
          <description><langstring lang="en">Basics</langstring></description></course>
          <au id="https://example.com/au/1" moveOn="Passed" masteryScore="0.8"><title><langstring>Unit 1</langstring></title>
          <url>unit1/index.html</url></au></courseStructure>`,
      },
      { name: 'unit1/index.html', data: 'x' },
    ])
    const c = await inspectPackage(cmi5)
    assert.equal(c.contentType, 'cmi5')
    assert.equal(c.scormVersion, null)
    assert.equal(c.title, 'Safety')
    assert.equal(c.launches[0]?.href, 'unit1/index.html')

    const tincan = await scratch.zip('tincan.zip', [
      {
        name: 'tincan.xml',
        data: `<tincan xmlns="http://projecttincan.com/tincan.xsd"><activities>
          <activity id="http://example.com/golf" type="http://adlnet.gov/expapi/activities/course">
          <name>Golf Example</name><launch lang="en-us">index.html</launch></activity></activities></tincan>`,
      },
      { name: 'index.html', data: 'x' },
    ])
    const t = await inspectPackage(tincan)
    assert.equal(t.contentType, 'xapi')
    assert.equal(t.title, 'Golf Example')
    assert.equal(t.launches[0]?.href, 'index.html')
  })
})

describe('with the file-system BlobStore', () => {
  async function keys(
    blobs: ReturnType<typeof createBlobStore>,
    prefix: string,
  ): Promise<string[]> {
    const out: string[] = []
    for await (const key of blobs.list(prefix)) out.push(key)
    return out.sort()
  }

  test('inspect, then store every file under the version prefix', async () => {
    const blobs = createBlobStore({
      dataDir: join(scratch.dir, 'data-ok'),
      publicUrl: 'http://127.0.0.1:1',
      uploadSecret: 'x'.repeat(32),
    })
    const zip = golf('singlescobasic.zip')
    const summary = await inspectPackage(zip, { maxEntries: 10_000 })
    const prefix = 'ten_1/test/packages/pkg_1/pv_1'
    await storePackageFiles(zip, summary, {}, async (path, stream, size) => {
      await blobs.put(`${prefix}/${path}`, stream, { contentLength: size })
    })
    const stored = await keys(blobs, `${prefix}/`)
    assert.deepEqual(stored, summary.files.map((f) => `${prefix}/${f}`).sort())
    const launch = await blobs.get(`${prefix}/shared/launchpage.html`)
    assert.ok(launch)
    launch.body.destroy()
  })

  test('a header lie found while storing: AppError, and deletePrefix undoes the partial write', async () => {
    const blobs = createBlobStore({
      dataDir: join(scratch.dir, 'data-liar'),
      publicUrl: 'http://127.0.0.1:1',
      uploadSecret: 'x'.repeat(32),
    })
    const zip = await scratch.zip('liar-package.zip', [
      { name: 'imsmanifest.xml', data: scorm12Manifest() },
      { name: 'index.html', data: '<p>hi</p>' },
      { name: 'media/liar.bin', data: Buffer.alloc(512 * 1024, 0x61), declaredSize: 1000 },
    ])
    const summary = await inspectPackage(zip) // the central directory looks fine
    const prefix = 'ten_1/test/packages/pkg_2/pv_1'
    const { code, message } = await refusal(
      storePackageFiles(zip, summary, {}, async (path, stream, size) => {
        await blobs.put(`${prefix}/${path}`, stream, { contentLength: size })
      }),
    )
    assert.equal(code, 'invalid_package')
    assert.match(message, /'media\/liar.bin' holds more data than its header declares/)
    assert.equal(await blobs.head(`${prefix}/media/liar.bin`), null)
    await blobs.deletePrefix(`${prefix}/`)
    assert.deepEqual(await keys(blobs, `${prefix}/`), [])
  })
})
