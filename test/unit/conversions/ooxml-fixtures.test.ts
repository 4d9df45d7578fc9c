import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { after, describe, test } from 'node:test'
import {
  extractPart,
  type PresentationContent,
  probePresentation,
  readPresentation,
  type SlideContent,
} from '../../../src/modules/conversions/ooxml/index.ts'
import { isAppError } from '../../../src/shared/app-error.ts'
import { collect, FIXTURES } from './pptx-builder.helper.ts'

/** One row of fixtures/pptx/README.md. */
interface Expectation {
  file: string
  slides: number | null
  hidden: number | null
  expect: 'ok' | 'fail'
}

function readme(): Expectation[] {
  const rows: Expectation[] = []
  for (const line of readFileSync(`${FIXTURES}README.md`, 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim())
    const file = /^`(.+)`$/.exec(cells[1] ?? '')?.[1]
    if (!file) continue
    const num = (s: string | undefined) => (s && /^\d+$/.test(s) ? Number(s) : null)
    const expect = cells[6] === 'ok' ? 'ok' : 'fail'
    rows.push({ file, slides: num(cells[3]), hidden: num(cells[4]), expect })
  }
  return rows
}

const rows = readme()
const timings: { file: string; probeMs: number; readMs: number; outcome: string }[] = []

/** Every `<a:t>` of the raw slide XML, decoded: an oracle independent of the reader. */
function rawTexts(xml: string): string[] {
  const out: string[] = []
  for (const m of xml.matchAll(/<a:t(?:\s[^>]*)?>([^<]*)<\/a:t>/g)) {
    const t = (m[1] ?? '')
      .replace(/&#x([0-9a-f]+);/gi, (_s, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
      .replace(/&#(\d+);/g, (_s, d: string) => String.fromCodePoint(Number(d)))
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&')
    if (t.trim() !== '') out.push(t)
  }
  return out
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim()

function slideText(slide: SlideContent): string {
  return squash(
    slide.blocks
      .map((b) =>
        b.kind === 'table' ? b.rows.flat().join(' ') : b.paragraphs.map((p) => p.text).join(' '),
      )
      .join(' '),
  )
}

describe('every fixture in shared/fixtures/pptx behaves as its README says', () => {
  test('the README lists every fixture file and nothing else', () => {
    const files = readdirSync(FIXTURES)
      .filter((f) => f !== 'README.md')
      .sort()
    assert.deepEqual(rows.map((r) => r.file).sort(), files)
  })

  for (const row of rows) {
    const path = `${FIXTURES}${row.file}`
    if (row.expect === 'fail') {
      test(`${row.file}: refused with a clear message, no crash or hang`, {
        timeout: 10_000,
      }, async (t) => {
        const t0 = performance.now()
        const err = await probePresentation(path).then(
          () => assert.fail('probe accepted a broken file'),
          (e: unknown) => e,
        )
        const probeMs = performance.now() - t0
        assert.ok(isAppError(err), `expected AppError, got ${String(err)}`)
        assert.equal(err.code, 'unprocessable')
        assert.ok(err.message.length > 20)
        if (row.file.includes('encrypted')) assert.match(err.message, /password-protected/)
        else assert.match(err.message, /damaged or incomplete/)
        await assert.rejects(
          readPresentation(path),
          (e) => isAppError(e) && e.code === 'unprocessable',
        )
        t.diagnostic(`probe ${probeMs.toFixed(1)} ms → refused: ${err.message}`)
        timings.push({
          file: row.file,
          probeMs,
          readMs: 0,
          outcome: `refused (${(err.details as { reason: string }).reason})`,
        })
      })
      continue
    }
    test(`${row.file}: ${row.slides} slide(s), ${row.hidden} hidden, text extracted`, {
      timeout: 20_000,
    }, async (t) => {
      const t0 = performance.now()
      const probe = await probePresentation(path)
      const probeMs = performance.now() - t0
      const t1 = performance.now()
      const content = await readPresentation(path)
      const readMs = performance.now() - t1
      t.diagnostic(`probe ${probeMs.toFixed(1)} ms, full read ${readMs.toFixed(1)} ms`)
      timings.push({
        file: row.file,
        probeMs,
        readMs,
        outcome: `${probe.visibleSlideCount} visible`,
      })

      const visible = (row.slides ?? 0) - (row.hidden ?? 0)
      assert.equal(probe.visibleSlideCount, visible)
      assert.equal(probe.hiddenSlideCount, row.hidden)
      assert.equal(content.visibleSlideCount, visible)
      assert.equal(content.hiddenSlideCount, row.hidden)
      assert.equal(content.slides.length, row.slides)
      assert.equal(content.title, probe.title)
      assert.ok(probeMs < 2000, `probe took ${probeMs} ms`)
      assert.deepEqual(JSON.parse(JSON.stringify(content)), content, 'result is plain JSON')
      await assertTextExtracted(content, path)
    })
  }

  after(() => {
    const lines = timings.map(
      (r) =>
        `${r.file.padEnd(40)} probe ${r.probeMs.toFixed(1).padStart(7)} ms  read ${r.readMs.toFixed(1).padStart(7)} ms  ${r.outcome}`,
    )
    console.log(`\nOOXML reader timings per fixture:\n${lines.join('\n')}\n`)
  })
})

/** Each slide's numbering, navigation title, and every raw `a:t` string must be in the output. */
async function assertTextExtracted(content: PresentationContent, path: string): Promise<void> {
  for (const [i, slide] of content.slides.entries()) {
    assert.equal(slide.index, i + 1)
    assert.ok(slide.navigationTitle.trim() !== '')
    if (slide.title) assert.equal(slide.navigationTitle, slide.title)
    const xml = (await collect(await extractPart(path, slide.partName))).toString('utf8')
    const text = slideText(slide)
    for (const raw of rawTexts(xml)) {
      assert.ok(
        text.includes(squash(raw)),
        `slide ${slide.index}: "${raw}" missing from extracted text`,
      )
    }
  }
}
