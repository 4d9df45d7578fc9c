import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  checkScormManifest,
  detectPackageLayout,
  type ManifestSummary,
  parseScormManifest,
  resolveLaunches,
  summarisePackage,
  validateScormManifest,
} from '../../../src/modules/scorm/manifest/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'

function summarise(text: string, files: string[] | null): ManifestSummary {
  return summarisePackage({
    layout: { contentType: 'scorm', manifestPath: 'imsmanifest.xml', warnings: [] },
    text,
    files,
    totalBytes: 0,
  })
}

function refused(text: string, files: string[] | null, pattern: RegExp): string[] {
  let problems: string[] = []
  assert.throws(
    () => summarise(text, files),
    (err: unknown) => {
      assert.ok(isAppError(err), String(err))
      assert.equal(err.code, 'invalid_package')
      assert.match(err.message, pattern)
      problems = (err.details as { problems?: string[] } | undefined)?.problems ?? []
      return true
    },
  )
  return problems
}

describe('manifest validation', () => {
  const base = (orgs: string, resources: string) => `<manifest identifier="m"
    xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
    <metadata><schemaversion>1.2</schemaversion></metadata>${orgs}${resources}</manifest>`
  const org = (items: string, attrs = 'default="o"') =>
    `<organizations ${attrs}><organization identifier="o"><title>T</title>${items}</organization></organizations>`
  const res = `<resources><resource identifier="r" type="webcontent" adlcp:scormtype="sco" href="a.html"/></resources>`

  test('no <resources>', () => {
    refused(
      base(org('<item identifier="i" identifierref="r"><title>I</title></item>'), ''),
      null,
      /no <resources> element/,
    )
  })

  test('no <organizations> element at all', () => {
    refused(base('', res), ['a.html'], /no <organizations> element/)
  })

  test('empty <organizations/> without any SCO resource', () => {
    const assets = `<resources><resource identifier="r" type="webcontent" adlcp:scormtype="asset" href="a.html"/></resources>`
    refused(base('<organizations/>', assets), ['a.html'], /no organization and no SCO resource/)
  })

  test('every problem is reported at once', () => {
    const items = `<item identifier="i1" identifierref="nope"><title>One</title></item>
      <item identifier="i2" identifierref="r"><title>Two</title></item>`
    const problems = refused(
      base(org(items), res),
      [],
      /resource 'nope', which is not in the manifest. \(and 1 more problem\)/,
    )
    assert.equal(problems.length, 2)
    assert.match(
      problems[1] ?? '',
      /launch file 'a.html' of the item 'i2' \("Two"\) is not in the zip/,
    )
  })

  test('a resource without href cannot be launched', () => {
    const noHref = `<resources><resource identifier="r" type="webcontent" adlcp:scormtype="sco"/></resources>`
    refused(
      base(org('<item identifier="i" identifierref="r"><title>I</title></item>'), noHref),
      [],
      /which has no href/,
    )
  })

  test('an organization with no launchable item', () => {
    refused(
      base(org('<item identifier="i"><title>Empty</title></item>'), res),
      ['a.html'],
      /has no item that launches a SCO or an asset/,
    )
  })

  test('a launch href that escapes the package', () => {
    const bad = `<resources><resource identifier="r" type="webcontent" adlcp:scormtype="sco" href="../../etc/passwd"/></resources>`
    refused(
      base(org('<item identifier="i" identifierref="r"><title>I</title></item>'), bad),
      [],
      /cannot be used: it points outside the package/,
    )
  })

  test('a wrong default organization falls back to the first, with a warning', () => {
    const s = summarise(
      base(
        org('<item identifier="i" identifierref="r"><title>I</title></item>', 'default="zzz"'),
        res,
      ),
      ['a.html'],
    )
    assert.equal(s.scorm?.defaultOrganization, 'o')
    assert.match(s.warnings.join(), /default organization 'zzz' does not exist/)
  })

  test('a resource without scormtype is treated as a SCO, with a warning', () => {
    const untyped = `<resources><resource identifier="r" type="webcontent" href="a.html"/></resources>`
    const s = summarise(
      base(org('<item identifier="i" identifierref="r"><title>I</title></item>'), untyped),
      ['a.html'],
    )
    assert.equal(s.launches[0]?.kind, 'sco')
    assert.match(s.warnings.join(), /treated as a SCO/)
  })

  test('external launch URLs are allowed with a warning', () => {
    const ext = `<resources><resource identifier="r" type="webcontent" adlcp:scormtype="sco" href="https://cdn.example.com/x.html"/></resources>`
    const s = summarise(
      base(
        org('<item identifier="i" identifierref="r" parameters="a=1"><title>I</title></item>'),
        ext,
      ),
      [],
    )
    assert.equal(s.launches[0]?.href, 'https://cdn.example.com/x.html?a=1')
    assert.equal(s.launches[0]?.path, null)
    assert.match(s.warnings.join(), /launches external content/)
  })

  test('empty <organizations/>: one organization per SCO resource is built', () => {
    const two = `<resources><resource identifier="a" type="webcontent" adlcp:scormtype="sco" href="a.html"/>
      <resource identifier="b" type="webcontent" adlcp:scormtype="sco" href="b.html"/>
      <resource identifier="c" type="webcontent" adlcp:scormtype="asset"><file href="c.js"/></resource></resources>`
    const s = summarise(base('<organizations/>', two), ['a.html', 'b.html', 'c.js'])
    assert.equal(s.scorm?.organizationGenerated, true)
    assert.deepEqual(
      s.launches.map((l) => l.href),
      ['a.html', 'b.html'],
    )
    assert.equal(s.title, 'm')
  })

  test('validation leaves the parsed manifest unchanged; launches come in a new tree', () => {
    const items = `<item identifier="c"><title>Chapter</title>
        <item identifier="i1" identifierref="r" parameters="?x=1"><title>One</title></item>
        <item identifier="i2" identifierref="r"><title>Two</title></item></item>`
    const parsed = parseScormManifest(base(org(items), res))
    const before = structuredClone(parsed)

    const info = validateScormManifest(parsed, ['a.html'])
    assert.deepEqual(parsed, before)
    const leaf = info.scorm.organizations[0]?.items[0]?.children[0]
    assert.equal(leaf?.launchHref, 'a.html?x=1')
    assert.equal(leaf?.launchPath, 'a.html')
    assert.equal(leaf?.scormType, 'sco')
    assert.equal(info.scorm.organizations[0]?.items[0]?.launchHref, null, 'a cluster has none')

    const check = checkScormManifest(parsed, ['a.html'])
    assert.deepEqual(check.problems, [])
    const resolved = resolveLaunches(check.organizations, check.itemLaunches)
    assert.deepEqual(resolved, info.scorm.organizations)
    assert.deepEqual(parsed, before)
  })

  test('a refused manifest is left unchanged too, and its problems are returned', () => {
    const parsed = parseScormManifest(
      base(org('<item identifier="i" identifierref="r"><title>I</title></item>'), res),
    )
    const before = structuredClone(parsed)
    const check = checkScormManifest(parsed, ['b.html'])
    assert.match(check.problems.join(), /'a.html' of the item 'i' \("I"\) is not in the zip/)
    assert.throws(() => validateScormManifest(parsed, ['b.html']), /not in the zip/)
    assert.deepEqual(parsed, before)
  })
})

describe('package layout', () => {
  test('root imsmanifest.xml wins over cmi5.xml and tincan.xml, with a warning', () => {
    const layout = detectPackageLayout(['cmi5.xml', 'imsmanifest.xml', 'index.html'])
    assert.equal(layout.contentType, 'scorm')
    assert.match(layout.warnings.join(), /also holds 'cmi5.xml'/)
  })

  test('the manifest name is matched case-insensitively at the root', () => {
    assert.equal(detectPackageLayout(['IMSManifest.XML']).manifestPath, 'IMSManifest.XML')
  })

  test('cmi5.xml and tincan.xml', () => {
    assert.equal(detectPackageLayout(['cmi5.xml']).contentType, 'cmi5')
    assert.equal(detectPackageLayout(['tincan.xml', 'a.html']).contentType, 'xapi')
  })

  test('AICC files, nested descriptors, empty zips', () => {
    assert.throws(
      () => detectPackageLayout(['course.crs', 'course.au', 'course.des']),
      /AICC packages are not supported/,
    )
    assert.throws(
      () => detectPackageLayout(['my course/cmi5.xml']),
      /cmi5.xml is inside the folder 'my course\/'/,
    )
    assert.throws(() => detectPackageLayout([]), /The zip is empty/)
  })
})
