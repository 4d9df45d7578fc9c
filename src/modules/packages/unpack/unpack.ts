import type { Readable } from 'node:stream'
import { AppError } from '../../../shared/app-error.ts'
import { displayName } from './entry-path.policy.ts'
import { formatBytes, resolveUnpackLimits, type UnpackLimits } from './unpack-limits.ts'
import { walkZip, type ZipEntryInfo } from './zip-walker.ts'

/**
 * Stores one file. It must consume `stream` completely (or reject); `size` is the uncompressed
 * size, already checked against the limits and enforced on the streamed bytes.
 */
export type WriteEntry = (path: string, stream: Readable, size: number) => Promise<void>

export interface UnpackSummary {
  /** Package paths written, in zip order. */
  files: string[]
  fileCount: number
  /** Bytes actually decompressed and handed to `writeEntry`. */
  totalBytes: number
  /** Folder entries, which carry no content and are not written. */
  skippedDirectories: number
}

export interface ZipListing {
  entries: ZipEntryInfo[]
  /** Sum of the declared uncompressed sizes (each is enforced when the entry is streamed). */
  totalBytes: number
  skippedDirectories: number
  zipFileSize: number
}

/**
 * Streams every file of the zip to `writeEntry`, one at a time, enforcing `limits` on the names,
 * the declared sizes and the decompressed bytes. Throws AppError `invalid_package` or
 * `payload_too_large` on the first problem; files written before it stay written, so a caller
 * that needs all-or-nothing writes under a prefix it can delete (BlobStore.deletePrefix).
 */
export async function unpackZip(
  zipPath: string,
  limits: Partial<UnpackLimits>,
  writeEntry: WriteEntry,
): Promise<UnpackSummary> {
  const files: string[] = []
  const result = await walkZip(zipPath, resolveUnpackLimits(limits), async (entry, open) => {
    const stream = await open()
    await writeEntry(entry.path, stream, entry.size)
    files.push(entry.path)
  })
  return {
    files,
    fileCount: files.length,
    totalBytes: result.actualBytes,
    skippedDirectories: result.skippedDirectories,
  }
}

/** Reads only the central directory: every file's path and sizes, with all name checks applied. */
export async function listZipEntries(
  zipPath: string,
  limits: Partial<UnpackLimits> = {},
): Promise<ZipListing> {
  const result = await walkZip(zipPath, resolveUnpackLimits(limits))
  return {
    entries: result.entries,
    totalBytes: result.declaredBytes,
    skippedDirectories: result.skippedDirectories,
    zipFileSize: result.zipFileSize,
  }
}

export interface ReadEntryOptions {
  limits?: Partial<UnpackLimits>
  /** Largest entry accepted, in bytes. Default 4 MiB (a manifest is a few hundred KB at most). */
  maxBytes?: number
}

const DEFAULT_MAX_ENTRY_READ = 4 * 1024 * 1024

/**
 * The bytes of one entry (by normalised package path), or null when the zip has no such file.
 * The whole zip's names and declared sizes are still checked.
 */
export async function readZipEntry(
  zipPath: string,
  path: string,
  options: ReadEntryOptions = {},
): Promise<Buffer | null> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_ENTRY_READ
  let found: Buffer | null = null
  await walkZip(zipPath, resolveUnpackLimits(options.limits), async (entry, open) => {
    if (entry.path !== path) return
    if (entry.size > maxBytes) throw tooLarge(path, maxBytes)
    const stream = await open()
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    found = Buffer.concat(chunks)
  })
  return found
}

/** Like readZipEntry, decoded as UTF-8 (a byte-order mark is dropped). */
export async function readZipEntryText(
  zipPath: string,
  path: string,
  options: ReadEntryOptions = {},
): Promise<string | null> {
  const bytes = await readZipEntry(zipPath, path, options)
  return bytes === null ? null : new TextDecoder('utf-8').decode(bytes)
}

function tooLarge(path: string, maxBytes: number): AppError {
  return new AppError(
    'payload_too_large',
    `The file '${displayName(path)}' is larger than ${formatBytes(maxBytes)}, too large to be read as a manifest.`,
    { entry: path, limitBytes: maxBytes },
  )
}
