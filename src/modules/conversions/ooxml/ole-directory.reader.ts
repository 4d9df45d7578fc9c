import type { FileHandle } from 'node:fs/promises'

/**
 * Lists the stream names of an OLE compound file (MS-CFB), which is all we need to tell an
 * encrypted OOXML file (EncryptionInfo + EncryptedPackage) from a legacy .ppt or another Office
 * file. Reads only the header, the FAT sectors on the directory chain and the directory itself.
 */

const END_OF_CHAIN = 0xfffffffe
const FREE_SECT = 0xffffffff
const HEADER_DIFAT_ENTRIES = 109
/** A directory larger than this is not an Office file worth identifying. */
const MAX_DIRECTORY_SECTORS = 512
const MAX_NAMES = 4096

export type OleKind = 'encrypted_ooxml' | 'powerpoint' | 'word' | 'excel' | 'unknown'

export async function identifyOleFile(file: FileHandle, size: number): Promise<OleKind> {
  const names = await listOleNames(file, size).catch(() => [] as string[])
  const set = new Set(names.map((n) => n.toLowerCase()))
  if (set.has('encryptedpackage') || set.has('encryptioninfo')) return 'encrypted_ooxml'
  if (set.has('powerpoint document')) return 'powerpoint'
  if (set.has('worddocument')) return 'word'
  if (set.has('workbook') || set.has('book')) return 'excel'
  return 'unknown'
}

async function listOleNames(file: FileHandle, size: number): Promise<string[]> {
  const header = await readAt(file, 0, 512)
  const shift = header.readUInt16LE(0x1e)
  if (shift !== 9 && shift !== 12) return []
  const sectorSize = 1 << shift
  const perSector = sectorSize / 4
  const firstDirSector = header.readUInt32LE(0x30)
  const firstDifatSector = header.readUInt32LE(0x44)
  const difatSectorCount = header.readUInt32LE(0x48)

  const difat: number[] = []
  for (let i = 0; i < HEADER_DIFAT_ENTRIES; i++) difat.push(header.readUInt32LE(0x4c + i * 4))
  let difatSector = firstDifatSector
  for (let i = 0; i < difatSectorCount && i < 64 && difatSector < END_OF_CHAIN; i++) {
    const buf = await readSector(file, size, sectorSize, difatSector)
    if (!buf) break
    for (let j = 0; j < perSector - 1; j++) difat.push(buf.readUInt32LE(j * 4))
    difatSector = buf.readUInt32LE((perSector - 1) * 4)
  }

  const fatCache = new Map<number, Buffer>()
  const nextSector = async (sector: number): Promise<number> => {
    const fatIndex = Math.floor(sector / perSector)
    const fatSector = difat[fatIndex]
    if (fatSector === undefined || fatSector >= END_OF_CHAIN) return END_OF_CHAIN
    let fat = fatCache.get(fatSector)
    if (!fat) {
      const buf = await readSector(file, size, sectorSize, fatSector)
      if (!buf) return END_OF_CHAIN
      fat = buf
      fatCache.set(fatSector, fat)
    }
    return fat.readUInt32LE((sector % perSector) * 4)
  }

  const names: string[] = []
  const seen = new Set<number>()
  let sector = firstDirSector
  while (sector < END_OF_CHAIN && sector !== FREE_SECT && !seen.has(sector)) {
    if (seen.size >= MAX_DIRECTORY_SECTORS || names.length >= MAX_NAMES) break
    seen.add(sector)
    const buf = await readSector(file, size, sectorSize, sector)
    if (!buf) break
    for (let off = 0; off + 128 <= buf.length; off += 128) {
      const nameBytes = buf.readUInt16LE(off + 0x40)
      const type = buf[off + 0x42]
      if (type === 0 || nameBytes < 2 || nameBytes > 64) continue
      names.push(buf.toString('utf16le', off, off + nameBytes - 2))
    }
    sector = await nextSector(sector)
  }
  return names
}

async function readSector(
  file: FileHandle,
  size: number,
  sectorSize: number,
  sector: number,
): Promise<Buffer | null> {
  const offset = (sector + 1) * sectorSize
  if (offset + sectorSize > size) return null
  return readAt(file, offset, sectorSize)
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length)
  const { bytesRead } = await file.read(buf, 0, length, position)
  return buf.subarray(0, bytesRead)
}
