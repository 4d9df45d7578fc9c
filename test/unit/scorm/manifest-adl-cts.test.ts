import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import {
  type ManifestItem,
  type ManifestSummary,
  summarisePackage,
} from '../../../src/modules/scorm/manifest/index.ts'

// The 169 manifests of ADL's SCORM 2004 4th Edition conformance suite (manifests only, no
// content files), so existence checks are off here.
const PACKAGES = fileURLToPath(
  new URL('../../../../shared/fixtures/scorm/adl-cts-4ed/packages/', import.meta.url),
)

function load(name: string): ManifestSummary {
  return summarisePackage({
    layout: { contentType: 'scorm', manifestPath: 'imsmanifest.xml', warnings: [] },
    text: readFileSync(join(PACKAGES, name, 'imsmanifest.xml'), 'utf8'),
    files: null,
    totalBytes: 0,
  })
}

function allItems(items: ManifestItem[]): ManifestItem[] {
  return items.flatMap((i) => [i, ...allItems(i.children)])
}

describe('ADL SCORM 2004 4th Edition conformance-suite manifests', () => {
  const names = readdirSync(PACKAGES)

  test('all of them parse as 2004 4th Edition, launchable, without warnings', () => {
    assert.ok(names.length >= 160)
    for (const name of names) {
      const summary = load(name)
      assert.equal(summary.scormVersion, '2004', name)
      assert.equal(summary.edition, '4th', name)
      assert.ok(summary.launches.length > 0, `${name} has launches`)
      assert.deepEqual(summary.warnings, [], name)
      // Stored as JSON: nothing may be lost (no undefined values, no class instances).
      assert.deepEqual(JSON.parse(JSON.stringify(summary)), summary, name)
    }
  })

  test('launch URLs carry xml:base and the act= parameters the test SCOs read', () => {
    const summary = load('CM-01')
    assert.deepEqual(
      summary.launches.map((l) => l.href),
      [
        'resources/SequencingTest.htm?tc=CM-01&act=1',
        'resources/SequencingTest.htm?tc=CM-01&act=2',
        'resources/SequencingTest.htm?tc=CM-01&act=3',
      ],
    )
    const jar = summary.scorm?.resources.find((r) => r.identifier === 'JAR01')
    assert.deepEqual(jar?.files, ['common/LMSTest.jar'])
  })

  test('identifiers padded with spaces are trimmed (they are XML IDs)', () => {
    const summary = load('OB-02b')
    assert.equal(summary.launches[0]?.resourceId, 'SEQ01')
    assert.equal(load('OB-02a').scorm?.defaultOrganization, 'OB-02a')
  })

  test('sequencing collections and IDRef', () => {
    const summary = load('CM-03b')
    assert.deepEqual(summary.scorm?.sequencingCollection, [
      { id: 'seqCol-CM03b-1', controlMode: { forwardOnly: true } },
    ])
    assert.equal(summary.scorm?.organizations[0]?.sequencing?.idRef, 'seqCol-CM03b-1')
    const items = allItems(load('RU-08b').scorm?.organizations[0]?.items ?? [])
    assert.ok(items.some((i) => i.sequencing?.idRef === 'seqCol-RU08b-1'))
  })

  test('adlseq:objectives and measure-based completion thresholds', () => {
    const items = load('CO-02a').scorm?.organizations[0]?.items ?? []
    assert.deepEqual(items[0]?.sequencing?.adlObjectives, [
      {
        objectiveID: 'PRIMARYOBJ',
        mapInfo: [
          {
            targetObjectiveID: 'gObj-CO02a',
            writeCompletionStatus: true,
            writeProgressMeasure: true,
          },
        ],
      },
    ])
    assert.deepEqual(items[1]?.completionThreshold, {
      completedByMeasure: true,
      minProgressMeasure: 0.5,
      progressWeight: 1,
    })
    assert.deepEqual(items[0]?.hideLmsUi, ['continue', 'previous', 'suspendAll'])
  })

  test('limit conditions give the item its max time allowed', () => {
    const items = load('CM-01').scorm?.organizations[0]?.items ?? []
    assert.equal(items[0]?.maxTimeAllowed, 'P5Y6M4DT12H30M58S')
    assert.equal(items[1]?.scaledPassingScore, 0.8)
  })
})
