import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import {
  probePresentation,
  readPresentation,
} from '../../../src/modules/conversions/ooxml/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import {
  deckEntries,
  FIXTURES,
  oleFile,
  para,
  tempDir,
  textShape,
  writeZip,
} from './pptx-builder.helper.ts'

const opts = { timeout: 15_000 }
let dir = ''
let cleanup: () => Promise<void> = async () => {}
let n = 0
const file = (ext = 'pptx') => join(dir, `deck-${n++}.${ext}`)

before(async () => {
  ;({ dir, cleanup } = await tempDir())
})
after(() => cleanup())

describe('synthetic files: refusals with user-facing messages', () => {
  const refuses = async (path: string, reason: string, message: RegExp) => {
    for (const run of [probePresentation, readPresentation]) {
      await assert.rejects(run(path), (e) => {
        assert.ok(isAppError(e), `expected AppError, got ${String(e)}`)
        assert.equal(e.code, 'unprocessable')
        assert.equal((e.details as { reason: string }).reason, reason)
        assert.match(e.message, message)
        return true
      })
    }
  }

  test('DOCTYPE / entity declarations are refused (no entity expansion)', opts, async () => {
    const entries = deckEntries({ slides: [{ shapes: '' }] })
    const laughs =
      '<!DOCTYPE p:presentation [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
    entries['ppt/presentation.xml'] = String(entries['ppt/presentation.xml']).replace(
      '?>',
      `?>${laughs}`,
    )
    await refuses(await writeZip(file(), entries), 'corrupt', /DOCTYPE/)
  })

  test('a ZIP bomb entry is refused before inflating', opts, async () => {
    const entries = deckEntries({ slides: [{ shapes: '' }] })
    entries['ppt/media/bomb.bin'] = Buffer.alloc(24 * 1024 * 1024)
    // How fast the refusal comes is measured in bench/ooxml-refusal.bench.ts, not asserted here.
    await refuses(await writeZip(file(), entries), 'too_large', /ZIP bomb/)
  })

  test('entry-count, total-size and XML-size limits are enforced', opts, async () => {
    const path = await writeZip(
      file(),
      deckEntries({ slides: [{ shapes: textShape([para('x')]) }] }),
    )
    const limited = async (limits: object, message: RegExp) =>
      assert.rejects(
        probePresentation(path, { limits }),
        (e) => isAppError(e) && message.test(e.message),
      )
    await limited({ maxEntries: 3 }, /ZIP entries/)
    await limited({ maxTotalUncompressedBytes: 500 }, /unpack to more than/)
    await limited({ maxXmlPartBytes: 100 }, /part that is larger than allowed/)
  })

  test('Keynote and OpenDocument archives are named', opts, async () => {
    const key = await writeZip(file('key'), {
      'Index/Document.iwa': 'x',
      'Metadata/Properties.plist': 'x',
    })
    await refuses(key, 'keynote', /Keynote/)
    const old = await writeZip(file('key'), { 'index.apxl.gz': 'x' })
    await refuses(old, 'keynote', /Export To > PowerPoint/)
    const odp = await writeZip(file('odp'), {
      mimetype: 'application/vnd.oasis.opendocument.presentation',
      'content.xml': '<x/>',
      'META-INF/manifest.xml': '<x/>',
    })
    await refuses(odp, 'opendocument', /OpenDocument/)
  })

  test('Word and Excel packages and plain ZIPs are not presentations', opts, async () => {
    const office = (kind: string, main: string) => {
      const entries = deckEntries({
        slides: [],
        mainType: `application/vnd.openxmlformats-officedocument.${kind}`,
      })
      entries['_rels/.rels'] = String(entries['_rels/.rels']).replace('ppt/presentation.xml', main)
      entries['[Content_Types].xml'] = String(entries['[Content_Types].xml']).replace(
        '/ppt/presentation.xml',
        `/${main}`,
      )
      entries[main] = '<x/>'
      return writeZip(file(), entries)
    }
    await refuses(
      await office('wordprocessingml.document.main+xml', 'word/document.xml'),
      'not_presentation',
      /Word document/,
    )
    await refuses(
      await office('spreadsheetml.sheet.main+xml', 'xl/workbook.xml'),
      'not_presentation',
      /Excel workbook/,
    )
    await refuses(
      await writeZip(file('zip'), { 'a.txt': 'hello' }),
      'not_presentation',
      /\[Content_Types\]\.xml/,
    )
    const noMain = deckEntries({ slides: [] })
    delete noMain['ppt/presentation.xml']
    await refuses(await writeZip(file(), noMain), 'corrupt', /main part/)
  })

  test('not a ZIP at all: text, PDF, empty file', opts, async () => {
    const write = async (data: string | Buffer) => {
      const p = file()
      await writeFile(p, data)
      return p
    }
    await refuses(
      await write('just some text, renamed to .pptx'),
      'not_zip',
      /not a PowerPoint presentation/,
    )
    await refuses(await write('%PDF-1.7\n...'), 'pdf', /PDF/)
    await refuses(await write(''), 'empty', /empty/)
  })

  test('a truncated upload is called damaged or incomplete', opts, async () => {
    const bytes = await readFile(`${FIXTURES}oxs_O12Typical.pptx`)
    for (const keep of [0.1, 0.5, 0.99]) {
      const p = file()
      await writeFile(p, bytes.subarray(0, Math.floor(bytes.length * keep)))
      await refuses(p, 'corrupt', /damaged or incomplete/)
    }
  })

  test('path traversal and duplicate part names in the ZIP are refused', opts, async () => {
    const entries = deckEntries({ slides: [{ shapes: '' }] })
    entries['xx/evil.txt'] = 'x'
    const path = await writeZip(file(), entries, true)
    const bytes = await readFile(path)
    await writeFile(
      path,
      Buffer.from(bytes.toString('latin1').replaceAll('xx/evil.txt', '../evil.txt'), 'latin1'),
    )
    await refuses(path, 'corrupt', /damaged/)
    const dup = deckEntries({ slides: [{ shapes: '' }] })
    dup['PPT/slides/S1.xml'] = dup['ppt/slides/s1.xml'] as string
    await refuses(await writeZip(file(), dup), 'corrupt', /appears twice/)
  })
})

describe('OLE compound files', () => {
  const refusesWith = async (streams: string[], reason: string, message: RegExp) => {
    const path = file('ppt')
    await writeFile(path, oleFile(streams))
    await assert.rejects(probePresentation(path), (e) => {
      assert.ok(isAppError(e) && e.code === 'unprocessable')
      assert.equal((e.details as { reason: string }).reason, reason)
      assert.match(e.message, message)
      return true
    })
  }

  test('a legacy .ppt is told to be re-saved as .pptx', opts, async () => {
    await refusesWith(
      ['PowerPoint Document', 'Current User'],
      'legacy_ppt',
      /97-2003 file \(\.ppt\)/,
    )
  })

  test(
    'an encrypted OOXML container is password-protected, even past the first directory sector',
    opts,
    async () => {
      const filler = Array.from({ length: 9 }, (_, i) => `Stream ${i}`)
      await refusesWith(
        [...filler, 'EncryptionInfo', 'EncryptedPackage'],
        'encrypted',
        /password-protected/,
      )
    },
  )

  test('other OLE files are named for what they are', opts, async () => {
    await refusesWith(['WordDocument'], 'legacy_office', /Word document \(\.doc\)/)
    await refusesWith(['Workbook'], 'legacy_office', /Excel workbook \(\.xls\)/)
    await refusesWith(['Something'], 'legacy_office', /OLE compound document/)
  })
})
