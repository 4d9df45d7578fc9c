import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { parseXml, XmlError } from '../../../src/modules/conversions/ooxml/xml.parser.ts'
import { parseXmlDocument } from '../../../src/modules/scorm/manifest/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { SAFE_XML_MAX_DEPTH, scanXml } from '../../../src/shared/safe-xml.policy.ts'

/** Parses with both readers: manifests and OOXML parts. Each outcome: 'ok' or a refusal text. */
function both(text: string): { manifest: string; ooxml: string } {
  const outcome = (fn: () => unknown, isRefusal: (e: unknown) => boolean) => {
    try {
      fn()
      return 'ok'
    } catch (err) {
      assert.ok(isRefusal(err), `an unexpected error: ${String(err)}`)
      return (err as Error).message
    }
  }
  return {
    manifest: outcome(() => parseXmlDocument(text, 'a.xml'), isAppError),
    ooxml: outcome(
      () => parseXml(text),
      (e) => e instanceof XmlError,
    ),
  }
}

const nested = (n: number) => `${'<a>'.repeat(n)}${'</a>'.repeat(n)}`

describe('one safe-XML policy for manifests and OOXML parts (issue 17.5)', () => {
  test('DOCTYPE and ENTITY declarations are refused by both, in any case', () => {
    for (const text of [
      '<!DOCTYPE x><x/>',
      '<!doctype x><x/>',
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>',
    ]) {
      const { manifest, ooxml } = both(text)
      assert.match(manifest, /DOCTYPE or ENTITY/, text)
      assert.match(ooxml, /DOCTYPE and ENTITY/, text)
    }
  })

  test('the word DOCTYPE inside a comment or CDATA is harmless to both', () => {
    const text = '<!-- <!DOCTYPE x> --><x><![CDATA[<!DOCTYPE html>]]></x>'
    assert.deepEqual(both(text), { manifest: 'ok', ooxml: 'ok' })
  })

  test('the same depth limit: 100 levels are read, 101 refused, by both', () => {
    assert.equal(SAFE_XML_MAX_DEPTH, 100)
    assert.deepEqual(both(nested(SAFE_XML_MAX_DEPTH)), { manifest: 'ok', ooxml: 'ok' })
    const { manifest, ooxml } = both(nested(SAFE_XML_MAX_DEPTH + 1))
    assert.match(manifest, /nested too deeply \(more than 100 levels\)/)
    assert.match(ooxml, /nested too deeply \(more than 100 levels\)/)
  })

  test('undefined entities are never expanded; predefined ones are decoded the same way', () => {
    const doc = parseXmlDocument('<x a="&xxe;&amp;&#233;">&xxe;&lt;</x>', 'a.xml')
    assert.equal(doc.root.attributes[0]?.value, '&xxe;&é')
    assert.equal(doc.root.text, '&xxe;<')
    const part = parseXml('<x a="&xxe;&amp;&#233;">&xxe;&lt;</x>')
    assert.equal(part.attrs.a, '&xxe;&é')
    assert.deepEqual(part.children, ['&xxe;<'])
  })

  test('the scan counts element starts by local name, skipping comments, CDATA and PIs', () => {
    const scan = scanXml(
      '<?xml version="1.0"?><m:root xmlns:m="u"><!-- <item> --><item/><m:item a="1"><![CDATA[<item>]]></m:item></m:root>',
    )
    assert.equal(scan.doctype, false)
    assert.equal(scan.elements, 3)
    assert.equal(scan.byLocalName.get('item'), 2)
  })
})
