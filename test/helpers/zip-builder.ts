import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32, deflateRawSync } from 'node:zlib'

/**
 * One entry of a hand-built zip. Everything a well-behaved zip tool would compute can be
 * overridden, so tests can write archives that yazl refuses to produce: `../` names, links,
 * lying sizes, encryption flags, odd compression methods.
 */
export interface ZipEntrySpec {
  /** Stored as-is (a Buffer allows invalid UTF-8 or raw CP437 bytes). */
  name: string | Buffer
  /** Uncompressed content. Default empty. */
  data?: Buffer | string
  /** 0 = stored, 8 = deflate. Default 8 for non-empty data, else 0. */
  method?: number
  /** The bytes written as file data; default the data deflated (method 8) or as-is. */
  compressed?: Buffer
  /** Uncompressed size written in both headers (lie here). */
  declaredSize?: number
  /** Compressed size written in both headers; default the real length of `compressed`. */
  declaredCompressedSize?: number
  crc32?: number
  /** General purpose bit flags; bit 11 (UTF-8) is added for non-ASCII string names. */
  flags?: number
  /** Unix mode put in the high 16 bits of the external attributes (0o120777 for a link). */
  unixMode?: number
  /** Raw external attributes; wins over unixMode. */
  externalAttributes?: number
  /** Default 0x031e: Unix, spec 3.0. */
  versionMadeBy?: number
}

const DOS_TIME = 0x6000 // 12:00:00
const DOS_DATE = 0x5a21 // 2025-01-01

function bytesOf(value: Buffer | string | undefined): Buffer {
  if (value === undefined) return Buffer.alloc(0)
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value
}

/** Builds the bytes of a zip: local headers and data, central directory, end record. */
export function buildZip(entries: ZipEntrySpec[], comment = ''): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const spec of entries) {
    const name = bytesOf(spec.name)
    const data = bytesOf(spec.data)
    const method = spec.method ?? (data.length > 0 ? 8 : 0)
    const body = spec.compressed ?? (method === 8 ? deflateRawSync(data) : data)
    const nonAscii = typeof spec.name === 'string' && /[^\x20-\x7e]/.test(spec.name)
    const flags = (spec.flags ?? 0) | (nonAscii ? 0x800 : 0)
    const crc = spec.crc32 ?? crc32(data)
    const size = spec.declaredSize ?? data.length
    const csize = spec.declaredCompressedSize ?? body.length
    const external = spec.externalAttributes ?? (spec.unixMode ?? 0o100644) * 0x10000

    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(flags, 6)
    local.writeUInt16LE(method, 8)
    local.writeUInt16LE(DOS_TIME, 10)
    local.writeUInt16LE(DOS_DATE, 12)
    local.writeUInt32LE(crc >>> 0, 14)
    local.writeUInt32LE(csize, 18)
    local.writeUInt32LE(size, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(0, 28)
    locals.push(local, name, body)

    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(spec.versionMadeBy ?? 0x031e, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(flags, 8)
    central.writeUInt16LE(method, 10)
    central.writeUInt16LE(DOS_TIME, 12)
    central.writeUInt16LE(DOS_DATE, 14)
    central.writeUInt32LE(crc >>> 0, 16)
    central.writeUInt32LE(csize, 20)
    central.writeUInt32LE(size, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt16LE(0, 30)
    central.writeUInt16LE(0, 32)
    central.writeUInt16LE(0, 34)
    central.writeUInt16LE(0, 36)
    central.writeUInt32LE(external >>> 0, 38)
    central.writeUInt32LE(offset, 42)
    centrals.push(central, name)

    offset += local.length + name.length + body.length
  }
  const directory = Buffer.concat(centrals)
  const commentBytes = Buffer.from(comment, 'utf8')
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(0, 4)
  end.writeUInt16LE(0, 6)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  end.writeUInt16LE(commentBytes.length, 20)
  return Buffer.concat([...locals, directory, end, commentBytes])
}

/** A scratch directory under the OS temp dir; `cleanup()` removes it. */
export async function scratchDir(prefix = 'courseport-zip-'): Promise<{
  dir: string
  write: (name: string, bytes: Buffer) => Promise<string>
  zip: (name: string, entries: ZipEntrySpec[]) => Promise<string>
  cleanup: () => Promise<void>
}> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  const write = async (name: string, bytes: Buffer): Promise<string> => {
    const path = join(dir, name)
    await writeFile(path, bytes)
    return path
  }
  return {
    dir,
    write,
    zip: (name, entries) => write(name, buildZip(entries)),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  }
}

/** A minimal valid SCORM 1.2 manifest launching `href`. */
export function scorm12Manifest(href = 'index.html', title = 'Test course'): string {
  return `<?xml version="1.0"?>
<manifest identifier="test" version="1" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
  <organizations default="org"><organization identifier="org"><title>${title}</title>
    <item identifier="i1" identifierref="r1"><title>Lesson</title></item>
  </organization></organizations>
  <resources><resource identifier="r1" type="webcontent" adlcp:scormtype="sco" href="${href}">
    <file href="${href}"/></resource></resources>
</manifest>`
}
