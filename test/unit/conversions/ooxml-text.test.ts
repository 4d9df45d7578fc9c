import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  probePresentation,
  type SlideContent,
} from '../../../src/modules/conversions/ooxml/index.ts'
import { FIXTURES, readFixture as read } from './pptx-builder.helper.ts'

function allText(slide: SlideContent): string {
  return slide.blocks
    .map((b) =>
      b.kind === 'table' ? b.rows.flat().join(' ') : b.paragraphs.map((p) => p.text).join(' '),
    )
    .join(' ')
}

const opts = { timeout: 15_000 }

describe('reading real decks: text, structure and titles', () => {
  test(
    'speaker notes come from the notes body placeholder, not the slide number',
    opts,
    async () => {
      const deck = await read('pyp_prs-notes.pptx')
      assert.equal(deck.slides[0]?.notes, 'Notes')
    },
  )

  test('slides without notes report null notes', opts, async () => {
    const deck = await read('poi_pie-chart.pptx')
    assert.equal(deck.slides[0]?.notes, null)
  })

  test('Japanese and astral-plane text survive intact', opts, async () => {
    const deck = await read('poi_with_japanese.pptx')
    const text = allText(deck.slides[0] as SlideContent)
    assert.ok(text.includes('ゾルゲと尾崎、淡々と最期'))
    assert.ok(text.includes('（ＧＨＱ）'))
    assert.ok(text.includes('𐌲𐌿𐍄𐌹𐍃𐌺'))
  })

  test('tables are read as rows of cell text', opts, async () => {
    const deck = await read('poi_with_japanese.pptx')
    const table = deck.slides[0]?.blocks.find((b) => b.kind === 'table')
    assert.deepEqual(table?.kind === 'table' ? table.rows[0] : null, [
      'Row 1 Col 1',
      'Row 1 Col 2',
      'Row 1 Col 3',
    ])
    const typical = await read('oxs_O12Typical.pptx')
    const t6 = typical.slides[5]?.blocks.find((b) => b.kind === 'table')
    assert.deepEqual(t6?.kind === 'table' ? t6.rows[1]?.slice(0, 2) : null, [
      'North America',
      '55,000,000',
    ])
  })

  test('bullets follow the placeholder, the layout and explicit buNone/buChar', opts, async () => {
    const deck = await read('oxs_O12Typical.pptx')
    const body = (n: number) =>
      deck.slides[n - 1]?.blocks.find((b) => b.kind === 'text' && b.role === 'body')
    const s2 = body(2)
    assert.ok(
      s2?.kind === 'text' && s2.paragraphs.every((p) => p.bullet),
      'title-and-content body is bulleted',
    )
    const s4 = body(4)
    assert.ok(
      s4?.kind === 'text' && s4.paragraphs.every((p) => !p.bullet),
      'caption body: layout says buNone',
    )
    const s7 = body(7)
    assert.ok(s7?.kind === 'text')
    assert.deepEqual(
      s7.paragraphs.slice(2, 4).map((p) => [p.text, p.level]),
      [
        ['Bar charts', 1],
        ['Pie charts', 1],
      ],
    )
    const japanese = (await read('poi_with_japanese.pptx')).slides[0]?.blocks
      .flatMap((b) => (b.kind === 'text' ? b.paragraphs : []))
      .filter((p) => p.text.startsWith('Bullet') || p.text.startsWith('Here is a list'))
    assert.equal(japanese?.[0]?.bullet, false, 'explicit buNone')
    assert.ok(
      (japanese?.length ?? 0) > 2 && japanese?.slice(1).every((p) => p.bullet),
      'explicit buChar',
    )
  })

  test('titles and navigation titles', opts, async () => {
    const typical = await read('oxs_O12Typical.pptx')
    assert.equal(typical.slides[0]?.title, 'Typical Presentation')
    assert.equal(typical.slides[0]?.navigationTitle, 'Typical Presentation')
    const notitle = await read('poi_with_japanese.pptx')
    assert.equal(notitle.slides[0]?.title, null)
    assert.equal(notitle.slides[0]?.navigationTitle, 'Row 1 Col 1', 'first line of text')
    const empty = await read('oxs_Ink2.pptx')
    assert.equal(empty.slides[0]?.navigationTitle, 'Slide 1')
  })

  test('presentation title: core properties, else first slide title', opts, async () => {
    const withCore = await read('oxs_STRICT_Photo_Album3.pptx')
    assert.equal(withCore.title, 'Photo Album')
    assert.equal(withCore.titleSource, 'core')
    const noCore = await read('pyp_EDGE_no-core-props.pptx')
    assert.equal(noCore.properties, null)
    assert.equal(noCore.title, 'Minimal Deck')
    assert.equal(noCore.titleSource, 'slide')
    assert.equal(
      (await probePresentation(`${FIXTURES}pyp_EDGE_no-core-props.pptx`)).title,
      'Minimal Deck',
    )
  })

  test('Strict OOXML namespaces read like Transitional', opts, async () => {
    const album = await read('oxs_STRICT_Photo_Album3.pptx')
    assert.equal(album.slides[0]?.title, 'Photo Album')
    assert.deepEqual(album.slideSize, { widthEmu: 9144000, heightEmu: 6858000, type: 'screen4x3' })
    const pie = await read('oxs_STRICT_3D_Pie_chart.pptx')
    assert.deepEqual(
      pie.slides.map((s) => s.objects[0]?.kind),
      ['chart', 'chart'],
    )
  })
})
