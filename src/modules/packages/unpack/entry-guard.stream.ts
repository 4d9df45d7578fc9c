import { Transform, type TransformCallback } from 'node:stream'
import { crc32 } from 'node:zlib'
import { AppError } from '../../../shared/app-error.ts'
import { displayName } from './entry-path.policy.ts'
import { formatBytes, type UnpackLimits } from './unpack-limits.ts'

/** Running count of decompressed bytes over the whole zip, shared by the guards of its entries. */
export interface UnpackTotals {
  actualBytes: number
}

export interface EntryGuardOptions {
  path: string
  declaredSize: number
  compressedSize: number
  expectedCrc32: number
  zipFileSize: number
  limits: UnpackLimits
  totals: UnpackTotals
}

/**
 * Sits between the decompressor and the consumer and counts the bytes that really come out.
 * It stops the stream as soon as a limit is crossed, whatever the headers said, and checks the
 * CRC-32 at the end (yauzl does not), so a damaged entry is never stored as if it were fine.
 */
export class EntryGuard extends Transform {
  private readonly options: EntryGuardOptions
  private bytes = 0
  private crc = 0
  /** The AppError this guard raised, so the caller can report it rather than a wrapped one. */
  failure: AppError | null = null

  constructor(options: EntryGuardOptions) {
    super()
    this.options = options
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const { limits, totals, path } = this.options
    this.bytes += chunk.length
    totals.actualBytes += chunk.length
    const problem =
      this.checkDeclared() ??
      checkFileSize(path, this.bytes, limits) ??
      checkTotalSize(totals.actualBytes, limits) ??
      checkEntryRatio(path, this.bytes, this.options.compressedSize, limits) ??
      checkTotalRatio(totals.actualBytes, this.options.zipFileSize, limits)
    if (problem) {
      this.failure = problem
      callback(problem)
      return
    }
    this.crc = crc32(chunk, this.crc)
    callback(null, chunk)
  }

  override _flush(callback: TransformCallback): void {
    const { path, declaredSize, expectedCrc32 } = this.options
    let problem: AppError | null = null
    if (this.bytes < declaredSize) {
      problem = new AppError(
        'invalid_package',
        `The zip entry '${displayName(path)}' holds less data than its header declares. The zip is damaged; create it again.`,
        { entry: path, declaredBytes: declaredSize, actualBytes: this.bytes },
      )
    } else if (this.crc >>> 0 !== expectedCrc32 >>> 0) {
      problem = new AppError(
        'invalid_package',
        `The zip entry '${displayName(path)}' is damaged (its checksum does not match). Create the zip again.`,
        { entry: path },
      )
    }
    this.failure = problem
    callback(problem)
  }

  private checkDeclared(): AppError | null {
    const { path, declaredSize } = this.options
    if (this.bytes <= declaredSize) return null
    return new AppError(
      'invalid_package',
      `The zip entry '${displayName(path)}' holds more data than its header declares. The zip is damaged or was crafted to hide its real size.`,
      { entry: path, declaredBytes: declaredSize },
    )
  }
}

export function checkFileSize(path: string, bytes: number, limits: UnpackLimits): AppError | null {
  if (bytes <= limits.maxFileBytes) return null
  return new AppError(
    'payload_too_large',
    `The file '${displayName(path)}' is larger than ${formatBytes(limits.maxFileBytes)} when unpacked, the limit for one file.`,
    { entry: path, limitBytes: limits.maxFileBytes },
  )
}

export function checkTotalSize(totalBytes: number, limits: UnpackLimits): AppError | null {
  if (totalBytes <= limits.maxTotalBytes) return null
  return new AppError(
    'payload_too_large',
    `The package is larger than ${formatBytes(limits.maxTotalBytes)} when unpacked, the limit for one package.`,
    { limitBytes: limits.maxTotalBytes },
  )
}

export function checkEntryRatio(
  path: string,
  bytes: number,
  compressedSize: number,
  limits: UnpackLimits,
): AppError | null {
  if (bytes <= limits.ratioFloorBytes) return null
  if (bytes <= compressedSize * limits.maxEntryRatio) return null
  return new AppError(
    'invalid_package',
    `The zip entry '${displayName(path)}' unpacks to more than ${limits.maxEntryRatio} times its compressed size. Zips like this are used as "zip bombs", so the package was refused.`,
    { entry: path, maxRatio: limits.maxEntryRatio },
  )
}

export function checkTotalRatio(
  totalBytes: number,
  zipFileSize: number,
  limits: UnpackLimits,
): AppError | null {
  if (totalBytes <= limits.ratioFloorBytes) return null
  if (totalBytes <= zipFileSize * limits.maxTotalRatio) return null
  return new AppError(
    'invalid_package',
    `The zip unpacks to more than ${limits.maxTotalRatio} times its own size. Zips like this are used as "zip bombs", so the package was refused.`,
    { maxRatio: limits.maxTotalRatio },
  )
}
