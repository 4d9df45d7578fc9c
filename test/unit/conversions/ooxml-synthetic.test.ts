import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import {
  probePresentation,
  readPresentation,
} from '../../../src/modules/conversions/ooxml/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { deckEntries, para, tempDir, textShape, writeZip } from './pptx-builder.helper.ts'

const opts = { timeout: 15_000 }
let dir = ''
let cleanup: () => Promise<void> = async () => {}
let n = 0
const file = (ext = 'pptx') => join(dir, `deck-${n++}.${ext}`)

before(async () => {
  ;({ dir, cleanup } = await tempDir())
})
after(() => cleanup())

describe('synthetic decks: structure', () => {
  test(
    'order follows sldIdLst, not file names; hidden slides are counted apart',
    opts,
    async () => {
      const path = await writeZip(
        file(),
        deckEntries({
          title: null,
          order: [2, 0, 1],
          slides: [
            { shapes: textShape([para('File one')], 'title'), hidden: true },
            { shapes: textShape([para('File two')], 'title') },
            { shapes: textShape([para('File three')], 'title') },
          ],
        }),
      )
      const probe = await probePresentation(path)
      assert.deepEqual(
        [probe.slideCount, probe.visibleSlideCount, probe.hiddenSlideCount],
        [3, 2, 1],
      )
      const deck = await readPresentation(path)
      assert.deepEqual(
        deck.slides.map((s) => [s.index, s.title, s.hidden]),
        [
          [1, 'File three', false],
          [2, 'File one', true],
          [3, 'File two', false],
        ],
      )
      assert.equal(deck.title, 'File three')
      assert.equal(probe.title, 'File three')
      assert.equal(deck.titleSource, 'slide')
    },
  )

  test('a deck whose slides are all hidden is readable and says so', opts, async () => {
    const path = await writeZip(
      file(),
      deckEntries({ slides: [{ shapes: textShape([para('Only')], 'title'), hidden: true }] }),
    )
    const probe = await probePresentation(path)
    assert.equal(probe.visibleSlideCount, 0)
    assert.ok(probe.warnings.some((w) => w.code === 'no_visible_slides'))
  })

  test(
    'paragraph levels, bullets, bold/italic, groups flattened in reading order',
    opts,
    async () => {
      const body = textShape(
        [
          para('Point', '', ' b="1"'),
          para('Sub point', '<a:pPr lvl="2"/>', ' i="true"'),
          para('Not bulleted', '<a:pPr><a:buNone/></a:pPr>'),
        ],
        '',
      )
      const group =
        '<p:grpSp><p:nvGrpSpPr><p:cNvPr id="90" name="Group"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>' +
        textShape([para('In group A')]) +
        textShape([para('Numbered', '<a:pPr><a:buAutoNum type="arabicPeriod"/></a:pPr>')]) +
        '</p:grpSp>'
      const path = await writeZip(
        file(),
        deckEntries({ slides: [{ shapes: textShape([para('Heading')], 'title') + body + group }] }),
      )
      const slide = (await readPresentation(path)).slides[0]
      const paragraphs = slide?.blocks.flatMap((b) => (b.kind === 'text' ? b.paragraphs : [])) ?? []
      assert.deepEqual(
        paragraphs.map((p) => [p.text, p.level, p.bullet]),
        [
          ['Heading', 0, false],
          ['Point', 0, true],
          ['Sub point', 2, true],
          ['Not bulleted', 0, false],
          ['In group A', 0, false],
          ['Numbered', 0, true],
        ],
      )
      assert.equal(paragraphs[1]?.runs[0]?.bold, true)
      assert.equal(paragraphs[2]?.runs[0]?.italic, true)
      assert.equal(paragraphs[0]?.runs[0]?.bold, false)
    },
  )

  test('Strict namespaces under unusual prefixes, with AlternateContent', opts, async () => {
    const entries = deckEntries({ strict: true, slides: [{ shapes: '' }] })
    entries['ppt/slides/s1.xml'] =
      '<?xml version="1.0" encoding="UTF-8"?><pml:sld xmlns:pml="http://purl.oclc.org/ooxml/presentationml/main" ' +
      'xmlns:dml="http://purl.oclc.org/ooxml/drawingml/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">' +
      '<pml:cSld><pml:spTree><mc:AlternateContent><mc:Choice Requires="p14"><pml:sp><pml:nvSpPr><pml:cNvPr id="2" name="T"/><pml:cNvSpPr/><pml:nvPr><pml:ph type="title"/></pml:nvPr></pml:nvSpPr>' +
      '<pml:txBody><dml:p><dml:r><dml:t>Choice</dml:t></dml:r></dml:p></pml:txBody></pml:sp></mc:Choice><mc:Fallback>' +
      '<pml:sp><pml:nvSpPr><pml:cNvPr id="2" name="T"/><pml:cNvSpPr/><pml:nvPr><pml:ph type="title"/></pml:nvPr></pml:nvSpPr>' +
      '<pml:txBody><dml:p><dml:r><dml:t>Strict &amp; fallback &#x2713;</dml:t></dml:r></dml:p></pml:txBody></pml:sp></mc:Fallback></mc:AlternateContent>' +
      '</pml:spTree></pml:cSld></pml:sld>'
    const deck = await readPresentation(await writeZip(file(), entries))
    assert.equal(deck.slides[0]?.title, 'Strict & fallback ✓')
    assert.equal(deck.slides[0]?.blocks.length, 1)
  })

  test('UTF-16 slide XML is read, and the probe still sees the hidden flag', opts, async () => {
    const entries = deckEntries({
      slides: [{ shapes: textShape([para('Ünïcödé')], 'title'), hidden: true }],
    })
    const xml = String(entries['ppt/slides/s1.xml']).replace(
      'encoding="UTF-8"',
      'encoding="UTF-16"',
    )
    entries['ppt/slides/s1.xml'] = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(xml, 'utf16le'),
    ])
    const path = await writeZip(file(), entries)
    assert.equal((await probePresentation(path)).hiddenSlideCount, 1)
    assert.equal((await readPresentation(path)).slides[0]?.title, 'Ünïcödé')
  })

  test('missing slide, image and notes parts are skipped with a warning', opts, async () => {
    const pic =
      '<p:pic><p:nvPicPr><p:cNvPr id="5" name="Pic" descr="A chart"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr>' +
      '<p:blipFill><a:blip r:embed="rIdImg"/></p:blipFill><p:spPr/></p:pic>'
    const rels =
      '<Relationship Id="rIdImg" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="../media/gone.png"/>' +
      '<Relationship Id="rIdN" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/gone.xml"/>'
    const entries = deckEntries({
      slides: [{ shapes: textShape([para('Kept')], 'title') + pic, rels }, { shapes: '' }],
    })
    delete entries['ppt/slides/s2.xml']
    const path = await writeZip(file(), entries)
    const probe = await probePresentation(path)
    assert.equal(probe.slideCount, 1)
    const deck = await readPresentation(path)
    const image = deck.slides[0]?.images[0]
    assert.deepEqual([image?.partName, image?.missing, image?.altText], [null, true, 'A chart'])
    assert.equal(deck.slides[0]?.notes, null)
    const warning = deck.warnings.find((w) => w.code === 'missing_parts')
    assert.ok(warning && /slide part/.test(warning.message) && /gone\.xml/.test(warning.message))
  })

  test(
    'linked and non-web media, sound effects and unsafe link schemes are reported',
    opts,
    async () => {
      const media = (id: number, tag: string, rel: string) =>
        `<p:pic><p:nvPicPr><p:cNvPr id="${id}" name="M${id}"/><p:cNvPicPr/><p:nvPr>${tag.replace('RID', rel)}</p:nvPr></p:nvPicPr><p:blipFill/><p:spPr/></p:pic>`
      const T = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
      const rels =
        `<Relationship Id="rV" Type="${T}/video" Target="file:///C:/talk.mp4" TargetMode="External"/>` +
        `<Relationship Id="rW" Type="${T}/video" Target="../media/old.wmv"/>` +
        `<Relationship Id="rJ" Type="${T}/hyperlink" Target="javascript:alert(1)" TargetMode="External"/>` +
        `<Relationship Id="rS" Type="${T}/audio" Target="../media/chime.wav"/>`
      const transition =
        '<p:transition spd="slow"><p:sndAc><p:stSnd><p:snd r:embed="rS" name="chime.wav"/></p:stSnd></p:sndAc></p:transition>'
      const link = `<a:p><a:r><a:rPr><a:hlinkClick r:id="rJ"/></a:rPr><a:t>click</a:t></a:r></a:p>`
      const entries = deckEntries({
        slides: [
          {
            shapes:
              media(5, '<a:videoFile r:link="RID"/>', 'rV') +
              media(6, '<a:videoFile r:link="RID"/>', 'rW') +
              textShape([link]),
            rels,
            after: transition,
          },
        ],
      })
      entries['ppt/media/old.wmv'] = Buffer.from('not really a wmv')
      entries['ppt/media/chime.wav'] = Buffer.from('RIFF')
      const deck = await readPresentation(await writeZip(file(), entries))
      const [linked, wmv, chime] = deck.slides[0]?.media ?? []
      assert.deepEqual(
        [chime?.usage, chime?.partName, chime?.playable],
        ['sound_effect', 'ppt/media/chime.wav', true],
      )
      assert.equal(deck.slides[0]?.transition, false, 'a sound alone is not a visual transition')
      assert.deepEqual([linked?.partName, linked?.linkedUrl], [null, 'file:///C:/talk.mp4'])
      assert.deepEqual(
        [wmv?.partName, wmv?.contentType, wmv?.playable],
        ['ppt/media/old.wmv', 'video/x-ms-wmv', false],
      )
      const codes = deck.warnings.map((w) => w.code)
      assert.ok(codes.includes('linked_media') && codes.includes('unsupported_media'))
      assert.deepEqual(deck.slides[0]?.links[0]?.target, {
        type: 'unsupported',
        action: 'url',
        detail: 'javascript:',
      })
    },
  )

  test(
    'a malformed slide refuses the deck in readPresentation, naming the part',
    opts,
    async () => {
      const entries = deckEntries({ slides: [{ shapes: textShape([para('x')]) }] })
      entries['ppt/slides/s1.xml'] = String(entries['ppt/slides/s1.xml']).replace('</p:spTree>', '')
      const path = await writeZip(file(), entries)
      await assert.rejects(readPresentation(path), (e) => {
        assert.ok(isAppError(e) && e.code === 'unprocessable')
        assert.match(e.message, /ppt\/slides\/s1\.xml is not well-formed XML/)
        return true
      })
    },
  )
})
