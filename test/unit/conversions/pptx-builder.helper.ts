import { createWriteStream } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import yazl from 'yazl'
import {
  type PresentationContent,
  readPresentation,
} from '../../../src/modules/conversions/ooxml/index.ts'

export const FIXTURES = new URL('../../../../shared/fixtures/pptx/', import.meta.url).pathname

export type Entries = Record<string, string | Buffer>

export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'courseport-ooxml-'))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** Writes a real ZIP with yazl; `stored` entries are not deflated. */
export async function writeZip(path: string, entries: Entries, stored = false): Promise<string> {
  const zip = new yazl.ZipFile()
  for (const [name, data] of Object.entries(entries)) {
    zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8'), name, {
      compress: !stored,
    })
  }
  zip.end()
  await pipeline(zip.outputStream, createWriteStream(path))
  return path
}

export async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c)
  return Buffer.concat(chunks)
}

export async function copyTruncated(src: string, dest: string, keep: number): Promise<string> {
  const bytes = await readFile(src)
  await writeFile(dest, bytes.subarray(0, Math.floor(bytes.length * keep)))
  return dest
}

const T = {
  p: 'http://schemas.openxmlformats.org/presentationml/2006/main',
  a: 'http://schemas.openxmlformats.org/drawingml/2006/main',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  rel: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
}
const S = {
  p: 'http://purl.oclc.org/ooxml/presentationml/main',
  a: 'http://purl.oclc.org/ooxml/drawingml/main',
  r: 'http://purl.oclc.org/ooxml/officeDocument/relationships',
  rel: 'http://purl.oclc.org/ooxml/officeDocument/relationships',
}

export interface SlideSpec {
  /** Shapes inside the spTree, written with the prefixes `p:`, `a:`, `r:`. */
  shapes: string
  hidden?: boolean
  /** Extra `<Relationship .../>` elements for the slide's .rels part. */
  rels?: string
  /** Anything after `</p:cSld>` (transition, timing). */
  after?: string
}

export interface DeckSpec {
  slides: SlideSpec[]
  /** Presentation order as indexes into `slides` (default: as listed). */
  order?: number[]
  title?: string | null
  strict?: boolean
  /** Content type of ppt/presentation.xml. */
  mainType?: string
}

const PML = 'application/vnd.openxmlformats-officedocument.presentationml'

/** A minimal but valid presentation package (no layouts/masters: the reader must cope). */
export function deckEntries(spec: DeckSpec): Entries {
  const ns = spec.strict ? S : T
  const xmlns = `xmlns:p="${ns.p}" xmlns:a="${ns.a}" xmlns:r="${ns.r}"`
  const order = spec.order ?? spec.slides.map((_, i) => i)
  const entries: Entries = {}
  const overrides = spec.slides
    .map(
      (_, i) => `<Override PartName="/ppt/slides/s${i + 1}.xml" ContentType="${PML}.slide+xml"/>`,
    )
    .join('')
  entries['[Content_Types].xml'] =
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
    `<Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/>` +
    `<Default Extension="mp4" ContentType="video/unknown"/><Default Extension="wmv" ContentType="video/x-ms-wmv"/>` +
    `<Override PartName="/ppt/presentation.xml" ContentType="${spec.mainType ?? `${PML}.presentation.main+xml`}"/>` +
    `<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>${overrides}</Types>`
  entries['_rels/.rels'] =
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
    `<Relationship Id="rId1" Type="${ns.rel}/officeDocument" Target="ppt/presentation.xml"/>` +
    `<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`
  if (spec.title !== null) {
    entries['docProps/core.xml'] =
      `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">` +
      `<dc:title>${spec.title ?? ''}</dc:title><dc:creator>Tester</dc:creator></cp:coreProperties>`
  }
  const ids = order.map((s, i) => `<p:sldId id="${256 + i}" r:id="rIdS${s + 1}"/>`).join('')
  entries['ppt/presentation.xml'] =
    `<?xml version="1.0" encoding="UTF-8"?><p:presentation ${xmlns}><p:sldIdLst>${ids}</p:sldIdLst>` +
    `<p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>`
  entries['ppt/_rels/presentation.xml.rels'] =
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
    spec.slides
      .map(
        (_, i) =>
          `<Relationship Id="rIdS${i + 1}" Type="${ns.rel}/slide" Target="slides/s${i + 1}.xml"/>`,
      )
      .join('') +
    `</Relationships>`
  spec.slides.forEach((slide, i) => {
    const show = slide.hidden ? ' show="0"' : ''
    entries[`ppt/slides/s${i + 1}.xml`] =
      `<?xml version="1.0" encoding="UTF-8"?><p:sld ${xmlns}${show}><p:cSld><p:spTree>` +
      `<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>` +
      `${slide.shapes}</p:spTree></p:cSld>${slide.after ?? ''}</p:sld>`
    if (slide.rels) {
      entries[`ppt/slides/_rels/s${i + 1}.xml.rels`] =
        `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${slide.rels}</Relationships>`
    }
  })
  return entries
}

let shapeId = 10

/** A text shape; `ph` is a placeholder type ('' for a placeholder without a type). */
export function textShape(paragraphs: string[], ph?: string, name = 'Shape'): string {
  const id = shapeId++
  const phXml = ph === undefined ? '' : ph === '' ? '<p:ph idx="1"/>' : `<p:ph type="${ph}"/>`
  return (
    `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${name} ${id}"/><p:cNvSpPr/><p:nvPr>${phXml}</p:nvPr></p:nvSpPr>` +
    `<p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>${paragraphs.join('')}</p:txBody></p:sp>`
  )
}

export function para(text: string, pPr = '', rPr = ''): string {
  return `<a:p>${pPr}<a:r><a:rPr lang="en-US"${rPr}/><a:t>${text}</a:t></a:r></a:p>`
}

/** A minimal OLE compound file whose directory lists `streams` (no stream data needed). */
export function oleFile(streams: string[]): Buffer {
  const sector = 512
  const buf = Buffer.alloc(512 + sector * 2 + sector * Math.ceil((streams.length + 1) / 4))
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(buf, 0)
  buf.writeUInt16LE(0x3e, 0x18)
  buf.writeUInt16LE(3, 0x1a)
  buf.writeUInt16LE(0xfffe, 0x1c)
  buf.writeUInt16LE(9, 0x1e)
  buf.writeUInt16LE(6, 0x20)
  buf.writeUInt32LE(1, 0x2c)
  buf.writeUInt32LE(1, 0x30)
  buf.writeUInt32LE(4096, 0x38)
  buf.writeUInt32LE(0xfffffffe, 0x3c)
  buf.writeUInt32LE(0xfffffffe, 0x44)
  for (let i = 0; i < 109; i++) buf.writeUInt32LE(i === 0 ? 0 : 0xffffffff, 0x4c + i * 4)
  const dirSectors = Math.ceil((streams.length + 1) / 4)
  const fat = 512
  buf.fill(0xff, fat, fat + sector)
  buf.writeUInt32LE(0xfffffffd, fat)
  for (let s = 1; s <= dirSectors; s++)
    buf.writeUInt32LE(s === dirSectors ? 0xfffffffe : s + 1, fat + s * 4)
  const names = ['Root Entry', ...streams]
  names.forEach((name, i) => {
    const off = 512 + sector + i * 128
    const bytes = Buffer.from(`${name}\0`, 'utf16le')
    bytes.copy(buf, off)
    buf.writeUInt16LE(bytes.length, off + 0x40)
    buf[off + 0x42] = i === 0 ? 5 : 2
  })
  return buf
}

const fixtureReads = new Map<string, Promise<PresentationContent>>()

/** readPresentation of a fixture, once per test file (several tests look at the same deck). */
export function readFixture(file: string): Promise<PresentationContent> {
  let p = fixtureReads.get(file)
  if (!p) {
    p = readPresentation(`${FIXTURES}${file}`)
    fixtureReads.set(file, p)
  }
  return p
}
