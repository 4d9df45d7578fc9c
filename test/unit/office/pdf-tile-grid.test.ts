import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { deflateSync } from 'node:zlib'
import { collapseTileGrids } from '../../../src/infra/office/pdf-tile-grid.ts'

/**
 * A one-page PDF laid out as LibreOffice writes it: classic xref, indirect /Length, shared
 * /Resources object, a 4 × 4 px RGB picture drawn once per tile over `cols` × `rows` cells
 * (`skip` cells left out), then a line of text.
 */
function tiledPdf(options: {
  cols: number
  rows: number
  skip?: (i: number, j: number) => boolean
  prefix?: string
}): Buffer {
  const size = 7.5
  const lines: string[] = [options.prefix ?? '0.1 w', 'q 0 0 300 200 re W* n']
  for (let j = options.rows - 1; j >= 0; j--) {
    for (let i = 0; i < options.cols; i++) {
      if (options.skip?.(i, j)) continue
      const x = (i * size - 1.25).toFixed(3)
      const y = (j * size - 0.5).toFixed(3)
      lines.push(`q ${size.toFixed(3)} 0 0 ${size.toFixed(3)} ${x} ${y} cm\n/Im4 Do Q`)
    }
  }
  lines.push('Q', '0 0 1 rg', '20 20 60 30 re f')
  const content = deflateSync(Buffer.from(`${lines.join('\n')}\n`, 'latin1'))
  const pixels = Buffer.alloc(4 * 4 * 3)
  for (let p = 0; p < 16; p++) pixels.set(p % 5 === 0 ? [200, 40, 40] : [240, 240, 220], p * 3)
  const picture = deflateSync(pixels)
  const objects: Buffer[] = [
    Buffer.from('<</Type/Catalog/Pages 2 0 R>>'),
    Buffer.from('<</Type/Pages/Kids[ 3 0 R ]/Count 1>>'),
    Buffer.from('<</Type/Page/Parent 2 0 R/Resources 4 0 R/MediaBox[0 0 300 200]/Contents 5 0 R>>'),
    Buffer.from('<</XObject<</Im4 7 0 R>>\n>>'),
    Buffer.concat([
      Buffer.from('<</Length 6 0 R/Filter/FlateDecode>>\nstream\n'),
      content,
      Buffer.from('\nendstream'),
    ]),
    Buffer.from(String(content.length)),
    Buffer.concat([
      Buffer.from(
        `<</Type/XObject/Subtype/Image/Width 4/Height 4/BitsPerComponent 8/Length ${picture.length}\n/Filter/FlateDecode/ColorSpace/DeviceRGB\n>>\nstream\n`,
      ),
      picture,
      Buffer.from('\nendstream'),
    ]),
  ]
  const parts = [Buffer.from('%PDF-1.6\n')]
  let offset = parts[0]?.length ?? 0
  const offsets: number[] = []
  objects.forEach((body, k) => {
    const object = Buffer.concat([Buffer.from(`${k + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')])
    offsets.push(offset)
    parts.push(object)
    offset += object.length
  })
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`]
  for (const o of offsets) xref.push(`${String(o).padStart(10, '0')} 00000 n \n`)
  xref.push(`trailer\n<</Size ${objects.length + 1}/Root 1 0 R\n>>\nstartxref\n${offset}\n%%EOF\n`)
  parts.push(Buffer.from(xref.join('')))
  return Buffer.concat(parts)
}

const poppler = existsSync('/usr/bin/pdftoppm') ? undefined : 'poppler-utils is not installed'

/**
 * Mean absolute difference per channel between two renders (pdftoppm, 96 dpi), and between their
 * average colours. A picture drawn tile by tile and as a pattern resamples differently at tile
 * edges (a 4 px picture on a 10 px tile), so pixels differ a little; a shifted or missing fill
 * moves both figures by tens.
 */
function difference(first: string, second: string) {
  const [a, b] = [pixelsOf(first), pixelsOf(second)]
  assert.equal(a.length, b.length)
  let total = 0
  let [sumA, sumB] = [0, 0]
  for (let k = 0; k < a.length; k++) {
    total += Math.abs((a[k] ?? 0) - (b[k] ?? 0))
    sumA += a[k] ?? 0
    sumB += b[k] ?? 0
  }
  return { pixels: total / a.length, average: Math.abs(sumA - sumB) / a.length }
}

/** The page as raw RGB (pdftoppm PPM at 96 dpi). */
function pixelsOf(pdf: string): Buffer {
  const ppm = execFileSync('pdftoppm', ['-r', '96', '-singlefile', pdf])
  const header = /^P6\s+\d+\s+\d+\s+255\s/.exec(ppm.toString('latin1', 0, 32))
  return ppm.subarray(header?.[0].length ?? 0)
}

describe('collapseTileGrids: LibreOffice tile-by-tile fills drawn as one pattern', () => {
  let dir = ''
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cp-tile-grid-'))
  })
  after(() => rm(dir, { recursive: true, force: true }))

  const write = async (name: string, pdf: Buffer) => {
    const path = join(dir, name)
    await writeFile(path, pdf)
    return path
  }

  test('a full grid becomes one pattern; the page looks the same', { skip: poppler }, async () => {
    const source = await write('grid.pdf', tiledPdf({ cols: 42, rows: 28 }))
    const out = await collapseTileGrids(source, join(dir, 'grid.out.pdf'))
    assert.equal(out, join(dir, 'grid.out.pdf'))
    const text = (await readFile(out)).toString('latin1')
    assert.match(text, /\/PatternType 1/)
    assert.match(text, /\/Pattern<<\/CpTile8 8 0 R>>/)
    assert.match(execFileSync('pdfinfo', [out], { encoding: 'utf8' }), /Pages:\s+1/)
    const diff = difference(source, out)
    assert.ok(diff.pixels < 12 && diff.average < 3, JSON.stringify(diff))
  })

  test('ragged rows (as LibreOffice staggers them) keep exactly their cells', {
    skip: poppler,
  }, async () => {
    const skip = (i: number, j: number) => (j % 2 === 0 && i === 0) || (j === 5 && i > 30)
    const source = await write('ragged.pdf', tiledPdf({ cols: 42, rows: 28, skip }))
    const out = await collapseTileGrids(source, join(dir, 'ragged.out.pdf'))
    assert.notEqual(out, source)
    const diff = difference(source, out)
    assert.ok(diff.pixels < 12 && diff.average < 3, JSON.stringify(diff))
  })

  test('left alone: holes inside a row, a transformed page, few tiles, not a PDF', async () => {
    const cases: Array<[string, Buffer]> = [
      ['holes.pdf', tiledPdf({ cols: 42, rows: 28, skip: (i, j) => i === 20 && j === 3 })],
      ['scaled.pdf', tiledPdf({ cols: 42, rows: 28, prefix: '0.5 0 0 0.5 0 0 cm' })],
      ['few.pdf', tiledPdf({ cols: 6, rows: 6 })],
      ['junk.pdf', Buffer.from('%PDF-1.4\nnot really\n')],
    ]
    for (const [name, pdf] of cases) {
      const source = await write(name, pdf)
      assert.equal(await collapseTileGrids(source, join(dir, `${name}.out`)), source, name)
    }
  })
})
