import type { Readable } from 'node:stream'
import yauzl from 'yauzl'
import { CachedFileReader } from '../../../infra/zip/cached-file.reader.ts'
import { isAppError } from '../../../shared/app-error.ts'
import { corrupt, rejection } from './ooxml.errors.ts'

const MiB = 1024 * 1024

/** Limits applied to every archive before anything is inflated. */
export interface ZipLimits {
  /** Most entries the central directory may list. Default 20 000. */
  maxEntries: number
  /** Most bytes all entries may declare uncompressed, summed. Default 2 GiB. */
  maxTotalUncompressedBytes: number
  /** Highest uncompressed/compressed ratio of one entry at or above `ratioCheckMinBytes`. Default 200. */
  maxEntryRatio: number
  /** Entries smaller than this are not ratio-checked: they cannot do harm. Default 1 MiB. */
  ratioCheckMinBytes: number
  /** Most bytes an XML part may inflate to; XML is held in memory to be parsed. Default 64 MiB. */
  maxXmlPartBytes: number
}

export const DEFAULT_ZIP_LIMITS: Readonly<ZipLimits> = Object.freeze({
  maxEntries: 20_000,
  maxTotalUncompressedBytes: 2048 * MiB,
  maxEntryRatio: 200,
  ratioCheckMinBytes: 1 * MiB,
  maxXmlPartBytes: 64 * MiB,
})

export function resolveLimits(limits?: Partial<ZipLimits>): ZipLimits {
  return { ...DEFAULT_ZIP_LIMITS, ...limits }
}

/** Part names are compared case-insensitively and without a leading slash (OPC rules). */
export function partKey(name: string): string {
  return name.replace(/^\/+/, '').toLowerCase()
}

/**
 * A ZIP file opened with yauzl (lazy entries, sizes validated). The central directory is read
 * once, checked against the limits, and kept as a case-insensitive map; parts are then inflated on
 * demand. Never extracts to disk.
 */
export class ZipArchive {
  readonly #zip: yauzl.ZipFile
  readonly #entries: ReadonlyMap<string, yauzl.Entry>

  private constructor(zip: yauzl.ZipFile, entries: ReadonlyMap<string, yauzl.Entry>) {
    this.#zip = zip
    this.#entries = entries
  }

  static async open(path: string, limits: ZipLimits): Promise<ZipArchive> {
    const { reader, size } = await CachedFileReader.open(path).catch((err: unknown) => {
      throw corrupt('the uploaded file could not be opened', err)
    })
    return new Promise((resolve, reject) => {
      const options = { lazyEntries: true, autoClose: false, validateEntrySizes: true }
      yauzl.fromRandomAccessReader(reader, size, options, (err, zip) => {
        if (err || !zip) {
          reader.close(() => {})
          return reject(corrupt('it is not a readable ZIP archive', err))
        }
        const fail = (error: unknown) => {
          zip.close()
          reject(error)
        }
        if (zip.entryCount > limits.maxEntries) return fail(tooMany(zip.entryCount, limits))
        const entries = new Map<string, yauzl.Entry>()
        let seen = 0
        let total = 0
        zip.on('error', (e: unknown) => fail(corrupt('its ZIP directory is broken', e)))
        zip.on('end', () => resolve(new ZipArchive(zip, entries)))
        zip.on('entry', (entry: yauzl.Entry) => {
          seen += 1
          total += entry.uncompressedSize
          const problem = checkEntry(entry, seen, total, limits, entries)
          if (problem) return fail(problem)
          if (!entry.fileName.endsWith('/')) entries.set(partKey(entry.fileName), entry)
          zip.readEntry()
        })
        zip.readEntry()
      })
    })
  }

  /** Entry names as stored in the archive (directories excluded). */
  names(): string[] {
    return [...this.#entries.values()].map((e) => e.fileName)
  }

  /** The stored spelling of a part name, or undefined when the archive has no such entry. */
  find(name: string): { name: string; size: number } | undefined {
    const entry = this.#entries.get(partKey(name))
    return entry ? { name: entry.fileName, size: entry.uncompressedSize } : undefined
  }

  /** Inflates a whole entry into memory; refuses entries declaring more than `maxBytes`. */
  async read(name: string, maxBytes: number): Promise<Buffer> {
    const chunks: Buffer[] = []
    let length = 0
    await this.#consume(name, maxBytes, (chunk) => {
      chunks.push(chunk)
      length += chunk.length
      return false
    })
    return Buffer.concat(chunks, length)
  }

  /** Inflates an entry until `done` says enough (or `maxBytes`), then stops reading. */
  async readHead(name: string, maxBytes: number, done: (head: Buffer) => boolean): Promise<Buffer> {
    let head = Buffer.alloc(0)
    await this.#consume(name, Number.POSITIVE_INFINITY, (chunk) => {
      head = Buffer.concat([head, chunk])
      return head.length >= maxBytes || done(head)
    })
    return head
  }

  /** A stream of the inflated entry; errors are yauzl's (size mismatch, inflate failure). */
  async stream(name: string): Promise<Readable> {
    const entry = this.#entries.get(partKey(name))
    if (!entry) throw corrupt(`part ${name} is missing`)
    try {
      return await this.#zip.openReadStreamPromise(entry)
    } catch (err) {
      throw corrupt(`part ${entry.fileName} cannot be unpacked`, err)
    }
  }

  /** Closes the file once every open stream has ended. Safe to call twice. */
  close(): void {
    this.#zip.close()
  }

  async #consume(name: string, maxBytes: number, onChunk: (c: Buffer) => boolean): Promise<void> {
    const entry = this.#entries.get(partKey(name))
    if (!entry) throw corrupt(`part ${name} is missing`)
    if (entry.uncompressedSize > maxBytes) throw oversized(entry.fileName, entry.uncompressedSize)
    const stream = await this.stream(name)
    let seen = 0
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        seen += chunk.length
        if (seen > maxBytes) throw oversized(entry.fileName, seen)
        if (onChunk(chunk)) break
      }
    } catch (err) {
      if (isAppError(err)) throw err
      throw corrupt(`part ${entry.fileName} cannot be unpacked`, err)
    }
  }
}

function checkEntry(
  entry: yauzl.Entry,
  seen: number,
  total: number,
  limits: ZipLimits,
  entries: ReadonlyMap<string, yauzl.Entry>,
): Error | null {
  if (seen > limits.maxEntries) return tooMany(seen, limits)
  if (total > limits.maxTotalUncompressedBytes) {
    return rejection(
      'too_large',
      `The presentation would unpack to more than ${Math.round(limits.maxTotalUncompressedBytes / MiB)} MiB and was refused as unsafe.`,
    )
  }
  const size = entry.uncompressedSize
  if (
    size >= limits.ratioCheckMinBytes &&
    size / Math.max(entry.compressedSize, 1) > limits.maxEntryRatio
  ) {
    return rejection(
      'too_large',
      `Part ${entry.fileName} is compressed ${Math.round(size / Math.max(entry.compressedSize, 1))}:1, which looks like a ZIP bomb; the file was refused.`,
    )
  }
  if (entry.isEncrypted()) return corrupt('it uses ZIP encryption, which PowerPoint never writes')
  if (entries.has(partKey(entry.fileName))) {
    return corrupt(`part ${entry.fileName} appears twice`)
  }
  return null
}

export function oversized(name: string, bytes: number): Error {
  const size = bytes >= MiB ? `${Math.round(bytes / MiB)} MiB` : `${bytes} bytes`
  return rejection(
    'too_large',
    `The presentation contains a part that is larger than allowed (${name}, ${size}); it was refused.`,
  )
}

function tooMany(count: number, limits: ZipLimits): Error {
  return rejection(
    'too_large',
    `The file lists ${count} ZIP entries, more than the ${limits.maxEntries} allowed; it was refused as unsafe.`,
  )
}
