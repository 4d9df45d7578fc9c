import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  decodeXmlBytes,
  parseScormManifest,
  parseXmlDocument,
} from '../../../src/modules/scorm/manifest/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { scorm12Manifest } from '../../helpers/zip-builder.ts'

function refusedWith(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(isAppError(err), `expected an AppError, got ${String(err)}`)
    assert.equal(err.code, 'invalid_package')
    assert.match(err.message, pattern)
    return true
  })
}

const BODY = scorm12Manifest().replace('<?xml version="1.0"?>', '')

describe('manifest XML is parsed safely', () => {
  test('a DOCTYPE is refused before parsing', () => {
    refusedWith(
      () => parseScormManifest(`<?xml version="1.0"?><!DOCTYPE manifest SYSTEM "x.dtd">${BODY}`),
      /^imsmanifest.xml: the file contains a DOCTYPE or ENTITY declaration/,
    )
  })

  test('an entity-expansion bomb ("billion laughs") is refused, not expanded', () => {
    const levels = Array.from(
      { length: 10 },
      (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`,
    ).join('')
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">${levels}]><manifest identifier="&lol10;"/>`
    refusedWith(() => parseScormManifest(bomb), /DOCTYPE or ENTITY/)
  })

  test('a lower-case or spaced doctype is refused too', () => {
    refusedWith(() => parseXmlDocument('<!doctype x><x/>', 'a.xml'), /DOCTYPE/)
    refusedWith(() => parseXmlDocument('<x><!ENTITY y "z"></x>', 'a.xml'), /DOCTYPE or ENTITY/)
  })

  test('undefined entities are never expanded', () => {
    const doc = parseXmlDocument('<x a="&xxe;">&xxe;</x>', 'a.xml')
    assert.equal(doc.root.text, '&xxe;')
    assert.equal(doc.root.attributes[0]?.value, '&xxe;')
  })

  test('the word DOCTYPE inside a comment or CDATA is harmless', () => {
    const doc = parseXmlDocument(
      '<!-- <!DOCTYPE x> --><x><![CDATA[<!DOCTYPE html> &amp;]]></x>',
      'a.xml',
    )
    assert.equal(doc.root.text, '<!DOCTYPE html> &amp;')
  })

  test('predefined entities and character references are decoded', () => {
    const doc = parseXmlDocument(
      '<x p="?a=1&amp;b=2&#x26;c=&#51;">caf&#233; &lt;b&gt; &quot;q&quot; &apos;</x>',
      'a.xml',
    )
    assert.equal(doc.root.attributes[0]?.value, '?a=1&b=2&c=3')
    assert.equal(doc.root.text, 'café <b> "q" \'')
  })

  test('malformed XML is refused with its line number', () => {
    refusedWith(
      () => parseScormManifest('<manifest>\n<organizations>\n</manifest>'),
      /^imsmanifest.xml: the file is not well-formed XML \(line 3: /,
    )
  })

  test('an empty file or one with only a declaration is "empty"', () => {
    refusedWith(() => parseScormManifest(''), /the file is empty/)
    refusedWith(
      () => parseScormManifest('<?xml version="1.0" encoding="UTF-8"?>\n'),
      /the file is empty/,
    )
  })

  test('absurdly deep nesting is refused', () => {
    const deep = `${'<a>'.repeat(500)}${'</a>'.repeat(500)}`
    refusedWith(() => parseXmlDocument(deep, 'a.xml'), /nested too deeply/)
  })

  test('attribute names like __proto__ are refused, and pollute nothing', () => {
    refusedWith(
      () => parseXmlDocument('<x __proto__="polluted"/>', 'a.xml'),
      /could not be read: Invalid name: "__proto__"/,
    )
    assert.equal(({} as Record<string, unknown>).polluted, undefined)
  })

  test('the top element must be <manifest>', () => {
    refusedWith(() => parseScormManifest('<html><body/></html>'), /top element is <html>/)
  })
})

describe('manifest bytes are decoded by BOM and declared encoding', () => {
  test('UTF-8 with and without BOM', () => {
    const text = '<t>été</t>'
    assert.equal(decodeXmlBytes(Buffer.from(text)), text)
    assert.equal(
      decodeXmlBytes(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])),
      text,
    )
  })

  test('UTF-16 with a BOM', () => {
    const text = '<t>été</t>'
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
    assert.equal(decodeXmlBytes(le), text)
  })

  test('ISO-8859-1 when the declaration says so', () => {
    const bytes = Buffer.from(
      '<?xml version="1.0" encoding="ISO-8859-1"?><t>\u00e9t\u00e9</t>',
      'latin1',
    )
    assert.match(decodeXmlBytes(bytes), /<t>été<\/t>/)
  })
})
