import type { Readable } from 'node:stream'
import yauzl, { type Entry, type ZipFile } from 'yauzl'
import { CachedFileReader } from '../../../infra/zip/cached-file.reader.ts'
import { AppError, isAppError } from '../../../shared/app-error.ts'
import {
  checkEntryRatio,
  checkFileSize,
  checkTotalRatio,
  checkTotalSize,
  EntryGuard,
  type UnpackTotals,
} from './entry-guard.stream.ts'
import { displayName, isSymlink, normaliseEntryName, PathRegistry } from './entry-path.policy.ts'
import type { UnpackLimits } from './unpack-limits.ts'

/** One file of the zip, after its name was normalised and its declared sizes checked. */
export interface ZipEntryInfo {
  path: string
  /** Uncompressed size from the central directory; the streamed bytes are held to it. */
  size: number
  compressedSize: number
}

/**
 * Called once per file entry, in zip order. `open()` returns the guarded content stream; a
 * visitor that calls it must consume the stream completely before its promise resolves.
 */
export type EntryVisitor = (entry: ZipEntryInfo, open: () => Promise<Readable>) => Promise<void>

export interface WalkResult {
  entries: ZipEntryInfo[]
  /** Sum of the declared uncompressed sizes. */
  declaredBytes: number
  /** Bytes actually decompressed (only entries that were opened). */
  actualBytes: number
  skippedDirectories: number
  zipFileSize: number
}

const SYSTEM_ERROR = /^E[A-Z]+$/

function isSystemError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && SYSTEM_ERROR.test(code)
}

/** Turns what yauzl says about a malformed archive into a message an author can act on. */
function zipError(err: unknown): unknown {
  if (isAppError(err) || isSystemError(err)) return err
  const detail = err instanceof Error ? err.message : String(err)
  if (/end of central directory record signature not found/i.test(detail)) {
    return new AppError(
      'invalid_package',
      'The file is not a zip archive, or it is incomplete (the upload may have been cut off). Create the zip again and upload it.',
      { detail },
    )
  }
  if (/strong encryption/i.test(detail)) {
    return new AppError(
      'invalid_package',
      'The zip is password-protected (encrypted). Upload a zip without a password.',
      { detail },
    )
  }
  return new AppError(
    'invalid_package',
    'The zip is damaged or incomplete and cannot be read. Create the zip again and upload it.',
    { detail },
  )
}

function entryStreamError(err: unknown, path: string): AppError {
  if (isAppError(err)) return err
  const detail = err instanceof Error ? err.message : String(err)
  const shown = displayName(path)
  if (/too many bytes/i.test(detail)) {
    return new AppError(
      'invalid_package',
      `The zip entry '${shown}' holds more data than its header declares. The zip is damaged or was crafted to hide its real size.`,
      { entry: path, detail },
    )
  }
  return new AppError(
    'invalid_package',
    `The zip entry '${shown}' is damaged and cannot be unpacked. Create the zip again and upload it.`,
    { entry: path, detail },
  )
}

const COMPRESSION_NAMES: Record<number, string> = {
  1: 'Shrink',
  6: 'Implode',
  9: 'Deflate64',
  12: 'BZIP2',
  14: 'LZMA',
  93: 'Zstandard',
  95: 'XZ',
  98: 'PPMd',
}

function isDirectoryEntry(entry: Entry, directoryName: boolean): boolean {
  if (directoryName) return true
  if (entry.uncompressedSize !== 0) return false
  const unixDir = ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o040000
  const dosDir = (entry.externalFileAttributes & 0x10) !== 0
  return unixDir || dosDir
}

async function openZip(zipPath: string): Promise<ZipFile> {
  try {
    // decodeStrings: false so that yauzl does not refuse names with its own terse messages; the
    // name is decoded below (CP437 or UTF-8, Info-ZIP Unicode path field) and checked by
    // normaliseEntryName. strictFileNames has no effect then.
    const { reader, size } = await CachedFileReader.open(zipPath)
    return await yauzl.fromRandomAccessReaderPromise(reader, size, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false,
      validateEntrySizes: true,
    })
  } catch (err) {
    throw zipError(err)
  }
}

/** Checks an entry's metadata; returns null for folders, which carry nothing to store. */
function checkEntry(entry: Entry, limits: UnpackLimits): { path: string; raw: string } | null {
  // strictFileNames = true keeps backslashes so that normaliseEntryName sees the raw name.
  const raw = yauzl.getFileNameLowLevel(
    entry.generalPurposeBitFlag,
    entry.fileNameRaw,
    entry.extraFields,
    true,
  )
  const { path, directory } = normaliseEntryName(raw, limits.maxPathBytes)
  if (isSymlink(entry.externalFileAttributes)) {
    throw new AppError(
      'invalid_package',
      `The zip contains a link (symlink) at '${displayName(raw)}', which is not allowed. Replace the link with the real file.`,
      { entry: displayName(raw) },
    )
  }
  if (entry.isEncrypted()) {
    throw new AppError(
      'invalid_package',
      `The zip entry '${displayName(raw)}' is password-protected (encrypted). Upload a zip without a password.`,
      { entry: displayName(raw) },
    )
  }
  if (isDirectoryEntry(entry, directory)) return null
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    const name = COMPRESSION_NAMES[entry.compressionMethod] ?? `method ${entry.compressionMethod}`
    throw new AppError(
      'invalid_package',
      `The zip entry '${displayName(raw)}' uses a compression method (${name}) that cannot be read. Create the zip again with standard (Deflate) compression, the default of most zip tools.`,
      { entry: displayName(raw), compressionMethod: entry.compressionMethod },
    )
  }
  return { path, raw }
}

async function openGuarded(
  zip: ZipFile,
  entry: Entry,
  info: ZipEntryInfo,
  limits: UnpackLimits,
  totals: UnpackTotals,
): Promise<EntryGuard> {
  let source: Readable
  try {
    source = await zip.openReadStreamPromise(entry)
  } catch (err) {
    throw isSystemError(err) ? err : entryStreamError(err, info.path)
  }
  const guard = new EntryGuard({
    path: info.path,
    declaredSize: info.size,
    compressedSize: info.compressedSize,
    expectedCrc32: entry.crc32,
    zipFileSize: zip.fileSize,
    limits,
    totals,
  })
  // The source flows into the guard at once, so a lying entry can fail before the consumer has
  // attached its own listeners (a BlobStore opening its temp file first). Without this the
  // error would be uncaught; the consumer still sees it, as the stream is left errored.
  guard.on('error', () => {})
  source.on('error', (err) => {
    const mapped = entryStreamError(err, info.path)
    guard.failure ??= mapped
    guard.destroy(mapped)
  })
  // yauzl asks for unpipe() before destroy() on its streams.
  guard.on('close', () => {
    if (!source.readableEnded) {
      source.unpipe(guard)
      source.destroy()
    }
  })
  source.pipe(guard)
  return guard
}

/**
 * Reads the zip's central directory entry by entry (never more than one entry in flight, so
 * memory does not grow with the package), checks every name and declared size, and hands each
 * file to `visit`. Throws AppError (`invalid_package` / `payload_too_large`) on the first
 * problem; errors of the visitor itself (a storage failure, say) pass through unchanged.
 */
export async function walkZip(
  zipPath: string,
  limits: UnpackLimits,
  visit?: EntryVisitor,
): Promise<WalkResult> {
  const zip = await openZip(zipPath)
  // After iteration stops early, yauzl has no listener left; a late error (closing the file)
  // must not become an uncaught exception.
  zip.on('error', () => {})
  const iterator = zip.eachEntry()
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw new AppError(
        'payload_too_large',
        `The zip contains ${zip.entryCount} files and folders; the limit is ${limits.maxEntries}.`,
        { entries: zip.entryCount, limit: limits.maxEntries },
      )
    }
    const registry = new PathRegistry()
    const totals: UnpackTotals = { actualBytes: 0 }
    const entries: ZipEntryInfo[] = []
    let declaredBytes = 0
    let skippedDirectories = 0
    for (;;) {
      let next: IteratorResult<Entry>
      try {
        next = await iterator.next()
      } catch (err) {
        throw zipError(err)
      }
      if (next.done) break
      const entry = next.value
      const checked = checkEntry(entry, limits)
      if (!checked) {
        skippedDirectories++
        continue
      }
      registry.add(checked.path, checked.raw)
      const info: ZipEntryInfo = {
        path: checked.path,
        size: entry.uncompressedSize,
        compressedSize: entry.compressedSize,
      }
      declaredBytes += info.size
      const declaredProblem =
        checkFileSize(info.path, info.size, limits) ??
        checkTotalSize(declaredBytes, limits) ??
        checkEntryRatio(info.path, info.size, info.compressedSize, limits) ??
        checkTotalRatio(declaredBytes, zip.fileSize, limits)
      if (declaredProblem) throw declaredProblem
      entries.push(info)
      if (visit) await visitEntry(zip, entry, info, limits, totals, visit)
    }
    return {
      entries,
      declaredBytes,
      actualBytes: totals.actualBytes,
      skippedDirectories,
      zipFileSize: zip.fileSize,
    }
  } finally {
    await iterator.return?.()
    zip.close()
  }
}

async function visitEntry(
  zip: ZipFile,
  entry: Entry,
  info: ZipEntryInfo,
  limits: UnpackLimits,
  totals: UnpackTotals,
  visit: EntryVisitor,
): Promise<void> {
  let guard: EntryGuard | null = null
  try {
    await visit(info, async () => {
      guard = await openGuarded(zip, entry, info, limits, totals)
      return guard
    })
  } catch (err) {
    // The consumer usually reports the stream's error, possibly wrapped; report the guard's own.
    const failure = (guard as EntryGuard | null)?.failure
    ;(guard as EntryGuard | null)?.destroy()
    throw failure ?? err
  }
  const opened = guard as EntryGuard | null
  if (opened && !opened.readableEnded) {
    opened.destroy()
    if (opened.failure) throw opened.failure
    throw new Error(`the consumer of '${info.path}' resolved before reading the whole entry`)
  }
}
