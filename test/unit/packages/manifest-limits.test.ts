import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { MANIFEST_LIMITS, parseScormManifest } from '../../../src/modules/scorm/manifest/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'

const HEADER =
  '<?xml version="1.0"?><manifest identifier="m" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"><metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>'
const RESOURCES =
  '<resources><resource identifier="r" type="webcontent" adlcp:scormtype="sco" href="index.html"><file href="index.html"/></resource></resources></manifest>'

/** A manifest of `items` flat items, or one chain of `depth` nested items. */
function manifest({ items = 0, depth = 0, files = 0 }): string {
  const flat = Array.from(
    { length: items },
    (_, i) => `<item identifier="i${i}" identifierref="r"><title>Lesson number ${i}</title></item>`,
  ).join('\n')
  const nested =
    Array.from({ length: depth }, (_, i) => `<item identifier="d${i}"><title>L${i}</title>`).join(
      '',
    ) + '</item>'.repeat(depth)
  const extraFiles = '<file href="index.html"/>'.repeat(files)
  return `${HEADER}<organizations default="o"><organization identifier="o"><title>T</title>${flat}${nested}</organization></organizations>${RESOURCES.replace('</resource>', `${extraFiles}</resource>`)}`
}

function refusedNaming(fn: () => unknown, limit: string, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(isAppError(err), String(err))
    assert.equal(err.code, 'invalid_package')
    assert.equal(err.status, 422)
    assert.match(err.message, pattern)
    assert.ok(err.message.includes(limit), `the message names ${limit}: ${err.message}`)
    return true
  })
}

describe('manifest limits (issue 10.9)', () => {
  test('60 000 items (a 5 MB manifest) are refused before a tree is built: memory stays flat', () => {
    const text = manifest({ items: 60_000 })
    assert.ok(text.length > 4_000_000)
    const before = process.memoryUsage().heapUsed
    refusedNaming(
      () => parseScormManifest(text),
      'maxManifestItems',
      /^imsmanifest.xml: the manifest has 60000 items; at most 10000 are accepted/,
    )
    // Parsing it whole took ~290 MB; the refusal is a scan of the text (allow generous noise).
    const grew = process.memoryUsage().heapUsed - before
    assert.ok(grew < 64 * 1024 * 1024, `heap grew ${Math.round(grew / 1e6)} MB`)
  })

  test('exactly the item cap is accepted', () => {
    const parsed = parseScormManifest(manifest({ items: MANIFEST_LIMITS.maxManifestItems }))
    assert.equal(parsed.organizations[0]?.items.length, 10_000)
  })

  test('more XML elements than the budget are refused before parsing, naming the limit', () => {
    refusedNaming(
      () => parseScormManifest(manifest({ items: 10, files: 60_000 })),
      'maxManifestElements',
      /too many XML elements \(600\d\d elements, more than the 50000 allowed\)/,
    )
  })

  test('items nested deeper than 20 levels are refused; 20 are accepted', () => {
    refusedNaming(
      () => parseScormManifest(manifest({ depth: 21 })),
      'maxItemDepth',
      /item 'd20' is nested 21 levels deep; at most 20 are accepted/,
    )
    let item = parseScormManifest(manifest({ depth: 20 })).organizations[0]?.items[0]
    let levels = 0
    while (item) {
      levels += 1
      item = item.children[0]
    }
    assert.equal(levels, 20)
  })
})
