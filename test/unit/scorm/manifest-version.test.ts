import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  parseScormManifest,
  versionFromSchemaVersion,
} from '../../../src/modules/scorm/manifest/index.ts'

const NS_12 = `xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"`
const NS_2004 = `xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss"`
const NS_NAV = `xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"`

function manifest(ns: string, schemaversion: string | null, itemExtra = ''): string {
  const metadata =
    schemaversion === null
      ? ''
      : `<metadata><schema>ADL SCORM</schema><schemaversion>${schemaversion}</schemaversion></metadata>`
  return `<manifest identifier="m" ${ns}>${metadata}
    <organizations default="o"><organization identifier="o"><title>T</title>
      <item identifier="i" identifierref="r"><title>I</title>${itemExtra}</item>
    </organization></organizations>
    <resources><resource identifier="r" type="webcontent" adlcp:scormType="sco" href="a.html"/></resources>
  </manifest>`
}

describe('schemaversion values', () => {
  const cases: [string, string, string | null][] = [
    ['1.2', '1.2', null],
    ['SCORM 1.2', '1.2', null],
    ['CAM 1.3', '2004', '2nd'],
    ['1.3', '2004', '2nd'],
    ['2004 2nd Edition', '2004', '2nd'],
    ['2004 3rd Edition', '2004', '3rd'],
    ['2004 4th Edition', '2004', '4th'],
    ['SCORM 2004 4th Edition', '2004', '4th'],
  ]
  for (const [value, version, edition] of cases) {
    test(`"${value}" is SCORM ${version}${edition ? ` ${edition}` : ''}`, () => {
      assert.deepEqual(versionFromSchemaVersion(value), { version, edition })
    })
  }
  test('unknown values say nothing', () => {
    assert.equal(versionFromSchemaVersion('banana'), null)
    assert.equal(versionFromSchemaVersion(null), null)
  })
})

describe('version and edition of whole manifests', () => {
  test('SCORM 1.2 by schemaversion and the adlcp_rootv1p2 namespace', () => {
    const m = parseScormManifest(manifest(NS_12, '1.2'))
    assert.equal(m.version, '1.2')
    assert.equal(m.edition, null)
    assert.deepEqual(m.warnings, [])
  })

  test('SCORM 1.2 by namespace alone', () => {
    const m = parseScormManifest(manifest(NS_12, null))
    assert.equal(m.version, '1.2')
    assert.deepEqual(m.warnings, [])
  })

  test('2004 2nd Edition ("CAM 1.3")', () => {
    const m = parseScormManifest(manifest(NS_2004, 'CAM 1.3'))
    assert.equal(m.version, '2004')
    assert.equal(m.edition, '2nd')
  })

  test('2004 4th Edition by schemaversion', () => {
    const m = parseScormManifest(manifest(`${NS_2004} ${NS_NAV}`, '2004 4th Edition'))
    assert.equal(m.edition, '4th')
  })

  test('2004 without schemaversion: 4th when it uses 4th-only features', () => {
    const m = parseScormManifest(
      manifest(
        NS_2004,
        null,
        '<adlcp:completionThreshold completedByMeasure="true" minProgressMeasure="0.5"/>',
      ),
    )
    assert.equal(m.version, '2004')
    assert.equal(m.edition, '4th')
    assert.deepEqual(m.warnings, [])
  })

  test('2004 without schemaversion and no 4th features: 3rd, with a warning', () => {
    const m = parseScormManifest(manifest(`${NS_2004} ${NS_NAV}`, null))
    assert.equal(m.edition, '3rd')
    assert.match(m.warnings.join(), /does not name its SCORM 2004 edition/)
  })

  test('schemaversion contradicted by namespaces: the namespaces win, with a warning', () => {
    const m = parseScormManifest(manifest(NS_2004, '1.2'))
    assert.equal(m.version, '2004')
    assert.match(m.warnings.join(), /says schemaversion "1.2" but uses SCORM 2004 namespaces/)
  })

  test('no signal at all: treated as 1.2, with a warning', () => {
    const m = parseScormManifest(manifest('xmlns:adlcp="urn:x"', null))
    assert.equal(m.version, '1.2')
    assert.match(m.warnings.join(), /does not say which SCORM version/)
  })

  test('no namespaces but sequencing elements: 2004', () => {
    const m = parseScormManifest(
      manifest('', null, '<imsss:sequencing><imsss:controlMode flow="true"/></imsss:sequencing>'),
    )
    assert.equal(m.version, '2004')
  })
})
