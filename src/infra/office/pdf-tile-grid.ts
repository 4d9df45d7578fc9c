import { readFile, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { deflate as deflateCb, inflate as inflateCb } from 'node:zlib'

const inflate = promisify(inflateCb)
const deflate = promisify(deflateCb)

/**
 * LibreOffice (7.x) exports a tiled picture fill — a PowerPoint pattern or texture background —
 * as one image draw per tile: `q a 0 0 d x y cm /Im4 Do Q`, 62 821 of them on each slide of a
 * template with a 5 × 5 px pattern. Poppler pays a fixed cost per draw, so such a page took 0.4-
 * 1.2 s to rasterise (ten times the rest of the deck). This rewrites each such run on a page into
 * one PDF tiling pattern (the same picture, the same lattice) and a few filled rectangles that
 * cover exactly the cells the tiles covered, appended as an incremental update; drawing it
 * takes milliseconds. Anything not in the exact shape LibreOffice writes is left alone.
 */

/** A page's operators larger than this are left alone (the template deck's are 3 MB). */
const MAX_CONTENT_BYTES = 64 * 1024 ** 2
/** Fewer tiles than this in a run: not worth a pattern. */
const MIN_TILES = 64
const TILE =
  /q (\d+(?:\.\d+)?) 0 0 (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?) cm\n\/(\w+) Do Q\n/y

interface Run {
  start: number
  end: number
  a: number
  d: number
  image: string
  /** Where each tile's lower left corner is. */
  xs: number[]
  ys: number[]
}

/** Consecutive tile draws of one picture at one size, in `content` (a page's operators). */
function findRuns(content: string): Run[] {
  const runs: Run[] = []
  let from = content.indexOf(' Do Q\n')
  while (from !== -1) {
    const start = content.lastIndexOf('q ', from)
    TILE.lastIndex = Math.max(0, start)
    let m = start >= 0 ? TILE.exec(content) : null
    if (!m || m.index !== start) {
      from = content.indexOf(' Do Q\n', from + 1)
      continue
    }
    const [, a, d, , , image = ''] = m
    const run: Run = { start, end: start, a: Number(a), d: Number(d), image, xs: [], ys: [] }
    while (m && m[1] === a && m[2] === d && m[5] === image) {
      run.xs.push(Number(m[3]))
      run.ys.push(Number(m[4]))
      run.end = TILE.lastIndex
      m = TILE.exec(content)
    }
    if (run.xs.length >= MIN_TILES) runs.push(run)
    from = content.indexOf(' Do Q\n', run.end)
  }
  return runs
}

/** Whether a `cm` is in force at `offset` (patterns live in the page's default space). */
function transformedAt(content: string, offset: number): boolean {
  const stack: boolean[] = []
  let current = false
  const ops = content.slice(0, offset)
  // LibreOffice writes text as hex strings; a literal string or an inline image could hide
  // operators from this simple scan, so either means "don't know".
  if (/[()]|\bBI\b/.test(ops)) return true
  for (const token of ops.split(/\s+/)) {
    if (token === 'q') stack.push(current)
    else if (token === 'Q') current = stack.pop() ?? current
    else if (token === 'cm') current = true
  }
  return current
}

interface Lattice {
  x0: number
  y0: number
  sx: number
  sy: number
  /** Rectangles (in cells) the tiles covered: row, first and last column. */
  rows: Array<{ j: number; i0: number; i1: number }>
}

/** The run's lattice, or null unless every tile sits on it once and each row is contiguous. */
function latticeOf(run: Run): Lattice | null {
  if (run.a <= 0 || run.d <= 0) return null
  const { xs, ys } = run
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity]
  for (let k = 0; k < xs.length; k++) {
    x0 = Math.min(x0, xs[k] as number)
    y0 = Math.min(y0, ys[k] as number)
    x1 = Math.max(x1, xs[k] as number)
    y1 = Math.max(y1, ys[k] as number)
  }
  const step = (span: number, size: number) => {
    const n = Math.round(span / size)
    return n === 0 ? size : span / n
  }
  const sx = step(x1 - x0, run.a)
  const sy = step(y1 - y0, run.d)
  // Tiles abut: a step off the tile size by more than 1 % would leave gaps or overlaps.
  if (Math.abs(sx - run.a) > run.a * 0.01 || Math.abs(sy - run.d) > run.d * 0.01) return null
  const cells = new Map<number, number[]>()
  for (let k = 0; k < xs.length; k++) {
    const [x, y] = [xs[k] as number, ys[k] as number]
    const i = Math.round((x - x0) / sx)
    const j = Math.round((y - y0) / sy)
    if (Math.abs(x0 + i * sx - x) > 0.01 || Math.abs(y0 + j * sy - y) > 0.01) return null
    const row = cells.get(j)
    if (row) row.push(i)
    else cells.set(j, [i])
  }
  const rows: Lattice['rows'] = []
  for (const [j, columns] of [...cells].sort((p, q) => p[0] - q[0])) {
    columns.sort((p, q) => p - q)
    const i0 = columns[0] ?? 0
    const i1 = columns.at(-1) ?? 0
    if (i1 - i0 + 1 !== columns.length) return null
    rows.push({ j, i0, i1 })
  }
  return { x0, y0, sx, sy, rows }
}

const num = (n: number) => String(Math.round(n * 10_000) / 10_000)

/** The operators that paint the lattice's cells with pattern `name`. */
function paint(lattice: Lattice, name: string): string {
  const { x0, y0, sx, sy } = lattice
  const rects: string[] = []
  for (let k = 0; k < lattice.rows.length; ) {
    const row = lattice.rows[k] as Lattice['rows'][number]
    let rowsHigh = 1
    for (;;) {
      const nextRow = lattice.rows[k + rowsHigh]
      if (
        !nextRow ||
        nextRow.j !== row.j + rowsHigh ||
        nextRow.i0 !== row.i0 ||
        nextRow.i1 !== row.i1
      )
        break
      rowsHigh++
    }
    const x = x0 + row.i0 * sx
    const y = y0 + row.j * sy
    rects.push(`${num(x)} ${num(y)} ${num((row.i1 - row.i0 + 1) * sx)} ${num(rowsHigh * sy)} re`)
    k += rowsHigh
  }
  return `q /Pattern cs /${name} scn\n${rects.join('\n')}\nf Q\n`
}

interface PdfObject {
  offset: number
  /** The object's text up to `stream` or `endobj` (latin1); '' when longer than we read. */
  head: string
}

/**
 * The object's text at `offset` up to `stream` or `endobj`; '' when longer than 64 KiB. Most
 * heads are a few dozen bytes: decoding 64 KiB for each object took 30-60 ms a deck.
 */
function objectHead(pdf: Buffer, offset: number): string {
  for (const size of [1024, 65_536]) {
    const text = pdf.subarray(offset, offset + size).toString('latin1')
    const stop = text.search(/stream\r?\n|endobj/)
    if (stop !== -1) return text.slice(0, stop)
    if (offset + size >= pdf.length) break
  }
  return ''
}

/** Objects of a single-revision PDF with a classic xref table; null for anything else. */
function readObjects(
  pdf: Buffer,
): { objects: Map<number, PdfObject>; trailer: string; xref: number } | null {
  const tail = pdf.subarray(Math.max(0, pdf.length - 1024)).toString('latin1')
  const xref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail)?.[1] ?? Number.NaN)
  if (!Number.isInteger(xref)) return null
  const table = pdf.subarray(xref).toString('latin1')
  const header = /^xref\s+0 (\d+)\s+/.exec(table)
  const trailer = /trailer\s*(<<[\s\S]*?>>)\s*startxref/.exec(table)?.[1]
  if (!header || !trailer || /\/Prev\b|\/Encrypt\b/.test(trailer)) return null
  const objects = new Map<number, PdfObject>()
  const count = Number(header[1])
  for (let n = 1; n < count; n++) {
    const entry = table.slice(header[0].length + n * 20, header[0].length + n * 20 + 18)
    const [offset, , kind] = entry.split(' ')
    if (kind !== 'n') continue
    const at = Number(offset)
    const label = `${n} 0 obj`
    if (pdf.subarray(at, at + label.length).toString('latin1') !== label) return null
    objects.set(n, { offset: at, head: objectHead(pdf, at) })
  }
  return { objects, trailer, xref }
}

/**
 * Rewrites `pdf` (written by LibreOffice) so tiled picture fills draw as patterns; returns the
 * path of the rewritten file, or `pdf` itself when there was nothing to do (or the file is not in
 * the shape this understands). Never throws for a PDF it does not understand.
 */
export async function collapseTileGrids(pdf: string, out: string): Promise<string> {
  const bytes = await readFile(pdf)
  const parsed = readObjects(bytes)
  if (!parsed) return pdf
  const { objects, trailer } = parsed
  let nextNumber = Number(/\/Size (\d+)/.exec(trailer)?.[1] ?? Number.NaN)
  const root = /\/Root (\d+ 0 R)/.exec(trailer)?.[1]
  if (!Number.isInteger(nextNumber) || !root) return pdf
  const updates = new Map<number, Buffer>()
  const patternsOf = new Map<number, string[]>() // resources object → pattern entries
  for (const [, page] of objects) {
    if (!/\/Type\s*\/Page[\s/>]/.test(page.head)) continue
    const contents = /\/Contents (\d+) 0 R/.exec(page.head)?.[1]
    const resources = Number(/\/Resources (\d+) 0 R/.exec(page.head)?.[1] ?? Number.NaN)
    const stream = objects.get(Number(contents))
    const resourceObject = objects.get(resources)
    if (!stream || !resourceObject || /\/Pattern\b/.test(resourceObject.head)) continue
    const lengthRef = /^\d+ 0 obj\s*<<\/Length (\d+) 0 R\/Filter\/FlateDecode>>\s*$/.exec(
      stream.head,
    )
    const length = Number(objects.get(Number(lengthRef?.[1]))?.head.match(/obj\s+(\d+)\s*$/)?.[1])
    if (!lengthRef || !Number.isInteger(length)) continue
    const dataStart =
      stream.offset +
      stream.head.length +
      (bytes[stream.offset + stream.head.length + 6] === 13 ? 8 : 7)
    const content = (
      await inflate(bytes.subarray(dataStart, dataStart + length), {
        maxOutputLength: MAX_CONTENT_BYTES,
      })
    ).toString('latin1')
    let rewritten = ''
    let done = 0
    for (const run of findRuns(content)) {
      const lattice = latticeOf(run)
      const image = new RegExp(`/${run.image} (\\d+) 0 R`).exec(resourceObject.head)?.[1]
      if (!lattice || !image || transformedAt(content, run.start)) continue
      const number = nextNumber++
      const name = `CpTile${number}`
      const cell = `/${run.image} Do`
      const matrix = [lattice.sx, 0, 0, lattice.sy, lattice.x0, lattice.y0].map(num).join(' ')
      updates.set(
        number,
        Buffer.from(
          `<</Type/Pattern/PatternType 1/PaintType 1/TilingType 1/BBox[0 0 1 1]/XStep 1/YStep 1/Matrix[${matrix}]/Resources<</XObject<</${run.image} ${image} 0 R>>>>/Length ${cell.length}>>\nstream\n${cell}\nendstream`,
          'latin1',
        ),
      )
      patternsOf.set(resources, [...(patternsOf.get(resources) ?? []), `/${name} ${number} 0 R`])
      rewritten += content.slice(done, run.start) + paint(lattice, name)
      done = run.end
    }
    if (done === 0) continue
    const packed = await deflate(Buffer.from(rewritten + content.slice(done), 'latin1'))
    updates.set(
      Number(contents),
      Buffer.concat([
        Buffer.from(`<</Length ${packed.length}/Filter/FlateDecode>>\nstream\n`, 'latin1'),
        packed,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    )
  }
  if (updates.size === 0) return pdf
  for (const [resources, entries] of patternsOf) {
    const head = objects.get(resources)?.head ?? ''
    const dict = /obj\s*(<<[\s\S]*>>)\s*$/.exec(head)?.[1]
    if (!dict) return pdf
    updates.set(
      resources,
      Buffer.from(`${dict.slice(0, -2)}/Pattern<<${entries.join('')}>>>>`, 'latin1'),
    )
  }
  return writeIncrementalUpdate(bytes, out, updates, { size: nextNumber, root, prev: parsed.xref })
}

async function writeIncrementalUpdate(
  bytes: Buffer,
  out: string,
  updates: Map<number, Buffer>,
  trailer: { size: number; root: string; prev: number },
): Promise<string> {
  const parts: Buffer[] = [bytes, Buffer.from('\n')]
  let offset = bytes.length + 1
  const entries: string[] = []
  for (const [number, body] of [...updates].sort((p, q) => p[0] - q[0])) {
    const object = Buffer.concat([
      Buffer.from(`${number} 0 obj\n`),
      body,
      Buffer.from('\nendobj\n'),
    ])
    entries.push(`${number} 1\n${String(offset).padStart(10, '0')} 00000 n \n`)
    parts.push(object)
    offset += object.length
  }
  parts.push(
    Buffer.from(
      `xref\n${entries.join('')}trailer\n<</Size ${trailer.size}/Root ${trailer.root}/Prev ${trailer.prev}>>\nstartxref\n${offset}\n%%EOF\n`,
    ),
  )
  await writeFile(out, Buffer.concat(parts))
  return out
}
