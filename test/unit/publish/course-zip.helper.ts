import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import yauzl from 'yauzl'
import {
  type CourseInput,
  parseSlideMarkdown,
} from '../../../src/modules/publish/course-generator/index.ts'

/** Every entry of a zip, by name (read with yauzl, the library uploads are read with). */
export function readZip(path: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, strictFileNames: true }, (err, zip) => {
      if (err || !zip) return reject(err)
      const files = new Map<string, Buffer>()
      zip.on('error', reject)
      zip.on('end', () => resolve(files))
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e)
          const chunks: Buffer[] = []
          stream.on('data', (c: Buffer) => chunks.push(c))
          stream.on('error', reject)
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks))
            zip.readEntry()
          })
        })
      })
      zip.readEntry()
    })
  })
}

export type XmlNode = Record<string, unknown>

/** The manifest as objects; attributes as `@_name` with their prefixes, repeated elements as arrays. */
export function parseManifest(xml: string): XmlNode {
  const valid = XMLValidator.validate(xml)
  if (valid !== true) throw new Error(`imsmanifest.xml is not well-formed: ${valid.err.msg}`)
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    isArray: (name) =>
      ['organization', 'item', 'resource', 'file', 'adlnav:hideLMSUI'].includes(name),
  })
  return parser.parse(xml) as XmlNode
}

export function child(node: unknown, name: string): XmlNode {
  const value = (node as XmlNode | undefined)?.[name]
  if (value === undefined) throw new Error(`no <${name}> in ${JSON.stringify(node).slice(0, 200)}`)
  return value as XmlNode
}

export function children(node: unknown, name: string): XmlNode[] {
  const value = (node as XmlNode | undefined)?.[name]
  return Array.isArray(value) ? (value as XmlNode[]) : []
}

export async function scratch(prefix: string) {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  return {
    dir,
    path: (name: string) => join(dir, name),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  }
}

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d4a9b40000000049454e44ae426082',
  'hex',
)

export const HOSTILE = '<img src=x onerror=alert(1)> "quoted" & <script>alert(2)</script>'

/** A course using every feature, with hostile text wherever an author can type. */
export function sampleCourse(scormVersion: '1.2' | '2004'): CourseInput {
  return {
    title: `Safety 101 ${HOSTILE}`,
    scormVersion,
    slides: [
      {
        title: `Welcome ${HOSTILE}`,
        blocks: parseSlideMarkdown(
          `**Bold** and *italic* ${HOSTILE}\n- one\n  - nested [site](https://example.com/x)\n- [bad](javascript:alert(3))`,
        ),
        notes: `Say hello ${HOSTILE}`,
        images: [
          {
            fileName: '../../etc/Photo "1".PNG',
            altText: `A photo ${HOSTILE}`,
            contentType: 'image/png',
            bytes: PNG,
          },
        ],
      },
      {
        title: 'Table and stream',
        blocks: [
          {
            kind: 'table',
            rows: [
              ['Head <b>', 'x'],
              ['1', '2'],
            ],
            header: true,
          },
        ],
        images: [
          {
            fileName: 'streamed.png',
            altText: '',
            contentType: 'image/png',
            open: () => Readable.from([PNG.subarray(0, 10), PNG.subarray(10)]),
          },
        ],
        media: [
          {
            fileName: 'clip.mp4',
            kind: 'video',
            contentType: 'video/mp4',
            title: `Clip ${HOSTILE}`,
            open: async () => Readable.from([Buffer.from('not really a video')]),
            poster: { contentType: 'image/png', bytes: PNG },
          },
        ],
      },
      {
        title: '',
        blocks: [],
        images: [],
        renderedImage: { contentType: 'image/jpeg', bytes: Buffer.from([0xff, 0xd8, 0xff, 0xd9]) },
      },
    ],
  }
}
