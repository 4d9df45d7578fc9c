import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import {
  probePresentation,
  readPresentation,
} from '../../../src/modules/conversions/ooxml/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { deckEntries, FIXTURES, para, tempDir, textShape, writeZip } from './pptx-builder.helper.ts'

let dir = ''
let cleanup: () => Promise<void> = async () => {}
let n = 0
before(async () => {
  ;({ dir, cleanup } = await tempDir())
})
after(() => cleanup())

/** Either a result that is plain JSON, or the module's rejection: never another error. */
async function readsOrRefuses(path: string): Promise<void> {
  for (const run of [probePresentation, readPresentation]) {
    try {
      const result = await run(path)
      assert.deepEqual(JSON.parse(JSON.stringify(result)), result)
    } catch (err) {
      assert.ok(isAppError(err), `unexpected ${err instanceof Error ? err.stack : String(err)}`)
      assert.equal(err.code, 'unprocessable')
      assert.ok(err.message.length > 0)
    }
  }
}

describe('damaged inputs never crash or hang the reader', () => {
  test('random byte corruption of a real deck', { timeout: 60_000 }, async () => {
    const original = await readFile(`${FIXTURES}pyp_EDGE_no-core-props.pptx`)
    const mutation = fc.array(
      fc.tuple(fc.nat({ max: original.length - 1 }), fc.integer({ min: 0, max: 255 })),
      {
        minLength: 1,
        maxLength: 24,
      },
    )
    await fc.assert(
      fc.asyncProperty(mutation, async (edits) => {
        const bytes = Buffer.from(original)
        for (const [at, value] of edits) bytes[at] = value
        const path = join(dir, `bytes-${n++}.pptx`)
        await writeFile(path, bytes)
        await readsOrRefuses(path)
      }),
      { numRuns: 80 },
    )
  })

  test('random damage to the XML inside a well-formed ZIP', { timeout: 60_000 }, async () => {
    const tokens = fc.constantFrom(
      '<',
      '>',
      '</a:t>',
      '<a:p>',
      '<p:sp>',
      '</p:sp>',
      '&',
      '&#0;',
      '&#x110000;',
      '"',
      "'",
      '<!--',
      ']]>',
      '<![CDATA[',
      'r:id="rIdS1"',
      'r:embed="x"',
      '<mc:AlternateContent>',
      '<p:grpSp>',
      '<p:ph type="title"/>',
      '\u0000',
      '\uFFFF',
      'xmlns:p="urn:x"',
      '<!DOCTYPE x>',
    )
    const damage = fc.array(fc.tuple(fc.nat(), fc.nat({ max: 8 }), tokens), {
      minLength: 1,
      maxLength: 6,
    })
    const part = fc.constantFrom(
      'ppt/slides/s1.xml',
      'ppt/presentation.xml',
      'ppt/_rels/presentation.xml.rels',
      '[Content_Types].xml',
      'ppt/slides/_rels/s1.xml.rels',
    )
    await fc.assert(
      fc.asyncProperty(part, damage, async (name, edits) => {
        const entries = deckEntries({
          slides: [
            {
              shapes:
                textShape([para('Title')], 'title') + textShape([para('Body', '', ' b="1"')], ''),
              rels: '<Relationship Id="rL" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="http://example.com/" TargetMode="External"/>',
            },
          ],
        })
        let xml = String(entries[name])
        for (const [at, cut, token] of edits) {
          const i = at % (xml.length + 1)
          xml = xml.slice(0, i) + token + xml.slice(i + cut)
        }
        entries[name] = xml
        const path = await writeZip(join(dir, `xml-${n++}.pptx`), entries)
        await readsOrRefuses(path)
      }),
      { numRuns: 120 },
    )
  })

  test('deeply nested groups and elements are bounded', { timeout: 20_000 }, async () => {
    const depth = 5000
    const open =
      '<p:grpSp><p:nvGrpSpPr><p:cNvPr id="3" name="g"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>'
    const nested = open.repeat(depth) + textShape([para('deep')]) + '</p:grpSp>'.repeat(depth)
    const path = await writeZip(
      join(dir, 'deep.pptx'),
      deckEntries({ slides: [{ shapes: nested }] }),
    )
    await readsOrRefuses(path)
  })
})
