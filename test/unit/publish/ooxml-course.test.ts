import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import {
  extractPart,
  type Paragraph,
  readPresentation,
  type SlideContent,
} from '../../../src/modules/conversions/ooxml/index.ts'
import { inspectPackage } from '../../../src/modules/packages/unpack/index.ts'
import {
  blocksFromOoxmlSlide,
  generateCourse,
  slideInputFromOoxml,
} from '../../../src/modules/publish/course-generator/index.ts'
import { readZip, scratch } from './course-zip.helper.ts'

const PPTX = fileURLToPath(new URL('../../../../shared/fixtures/pptx/', import.meta.url))

function para(text: string, opts: Partial<Paragraph> = {}): Paragraph {
  return {
    text,
    level: 0,
    bullet: false,
    runs: [{ text, bold: false, italic: false, link: null }],
    ...opts,
  }
}

function slide(blocks: SlideContent['blocks']): Pick<SlideContent, 'blocks'> {
  return { blocks }
}

const text = (role: 'title' | 'body' | 'footer' | 'text' | 'subtitle', paragraphs: Paragraph[]) =>
  ({ kind: 'text', role, placeholder: null, shapeName: 'Shape', paragraphs }) as const

describe('OOXML slide text as blocks', () => {
  test('the title and footers are left out; bullets form lists, other paragraphs stay paragraphs', () => {
    const blocks = blocksFromOoxmlSlide(
      slide([
        text('title', [para('The title')]),
        text('body', [
          para('Intro'),
          para('one', { bullet: true, level: 1 }),
          para('one.a', { bullet: true, level: 2 }),
          para('', { bullet: true }),
          para('two', { bullet: true, level: 1 }),
          para('Outro'),
        ]),
        text('footer', [para('Page 3')]),
      ]),
    )
    assert.deepEqual(blocks, [
      { kind: 'paragraph', runs: [{ text: 'Intro' }] },
      {
        kind: 'list',
        items: [
          { level: 0, runs: [{ text: 'one' }] },
          { level: 1, runs: [{ text: 'one.a' }] },
          { level: 0, runs: [{ text: 'two' }] },
        ],
      },
      { kind: 'paragraph', runs: [{ text: 'Outro' }] },
    ])
  })

  test('formatting and http(s) links are kept; other link targets keep only their text', () => {
    const [block] = blocksFromOoxmlSlide(
      slide([
        text('text', [
          {
            text: 'ab cd ef gh',
            level: 0,
            bullet: false,
            runs: [
              { text: 'a', bold: true, italic: false, link: null },
              { text: 'b ', bold: true, italic: false, link: null },
              {
                text: 'cd',
                bold: false,
                italic: true,
                link: { type: 'url', url: 'https://example.com' },
              },
              { text: ' ef', bold: false, italic: false, link: { type: 'slide', slideIndex: 2 } },
              {
                text: ' gh',
                bold: false,
                italic: false,
                link: { type: 'url', url: 'javascript:alert(1)' },
              },
              { text: '\n', bold: false, italic: false, link: null },
            ],
          },
        ]),
      ]),
    )
    assert.deepEqual(block, {
      kind: 'paragraph',
      runs: [
        { text: 'ab ', bold: true },
        { text: 'cd', italic: true, link: 'https://example.com/' },
        { text: ' ef gh\n' },
      ],
    })
  })

  test('tables keep their rows (empty rows dropped); SmartArt nodes become a list', () => {
    const blocks = blocksFromOoxmlSlide(
      slide([
        {
          kind: 'table',
          shapeName: 'T',
          rows: [
            ['a', 'b'],
            ['', ''],
            ['c', ''],
          ],
        },
        { kind: 'table', shapeName: 'Empty', rows: [['', '']] },
        {
          kind: 'smartart',
          shapeName: 'S',
          paragraphs: [para('root'), para('leaf', { level: 1 })],
        },
      ]),
    )
    assert.deepEqual(blocks, [
      {
        kind: 'table',
        rows: [
          ['a', 'b'],
          ['c', ''],
        ],
      },
      {
        kind: 'list',
        items: [
          { level: 0, runs: [{ text: 'root' }] },
          { level: 1, runs: [{ text: 'leaf' }] },
        ],
      },
    ])
  })
})

describe('a real .pptx through reader and generator', () => {
  let dir: Awaited<ReturnType<typeof scratch>>
  before(async () => {
    dir = await scratch('courseport-pptx-course-')
  })
  after(async () => {
    await dir.cleanup()
  })

  for (const [file, version] of [
    ['oxs_typical.pptx', '2004'],
    ['poi_EmbeddedVideo.pptx', '1.2'],
    ['pyp_prs-notes.pptx', '2004'],
  ] as const) {
    test(`${file} becomes a SCORM ${version} course our upload accepts`, async () => {
      const path = `${PPTX}${file}`
      const deck = await readPresentation(path)
      const visible = deck.slides.filter((s) => !s.hidden)
      const out = dir.path(`${file}.zip`)
      const result = await generateCourse(
        {
          title: deck.title ?? file,
          scormVersion: version,
          slides: visible.map((s) => slideInputFromOoxml(s, (part) => extractPart(path, part))),
        },
        out,
      )
      const summary = await inspectPackage(out)
      assert.equal(summary.scormVersion, version)
      assert.deepEqual(summary.warnings, [])
      const files = await readZip(out)
      const html = files.get('index.html')?.toString() ?? ''
      assert.equal(html.match(/<section /g)?.length, visible.length)
      for (const s of visible) assert.ok(html.includes(`<h2 id="slide-${s.index}-title">`))
      for (const asset of result.files.filter((f) => f.startsWith('assets/')))
        assert.ok((files.get(asset)?.length ?? 0) > 0, `${asset} has its bytes`)

      if (file === 'oxs_typical.pptx') {
        assert.match(html, /<h2 id="slide-2-title">Text Only Slide<\/h2>/)
        assert.match(html, /<li>29% of slides created in a typical PowerPoint presentation/)
        assert.match(html, /alt="PowerPointFront"/)
        assert.match(
          html,
          /<summary>Speaker notes<\/summary><div class="notes-body"><p>The most popular layouts are:<br>Title and bullet/,
        )
        const jpeg = [...files.keys()].find((f) => f.endsWith('.jpg'))
        assert.deepEqual(files.get(jpeg ?? '')?.subarray(0, 2), Buffer.from([0xff, 0xd8]))
      }
      if (file === 'poi_EmbeddedVideo.pptx') {
        assert.match(
          html,
          /<video controls preload="metadata" playsinline src="assets\/s001-media1-media1.mp4" poster="assets\/s001-media1-media1-poster.png"/,
        )
        const mp4 = files.get('assets/s001-media1-media1.mp4')
        assert.equal(mp4?.subarray(4, 8).toString(), 'ftyp')
      }
      if (file === 'pyp_prs-notes.pptx') assert.match(html, /<p>Notes<\/p>/)
    })
  }
})
