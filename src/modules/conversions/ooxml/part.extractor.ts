import { Readable } from 'node:stream'
import { AppError, isAppError } from '../../../shared/app-error.ts'
import { sniffZipFile } from './file-format.sniffer.ts'
import { corrupt } from './ooxml.errors.ts'
import { guarded, type ReaderOptions } from './reader.options.ts'
import { oversized, resolveLimits, ZipArchive } from './zip-archive.reader.ts'

export interface ExtractOptions extends ReaderOptions {
  /** Refuse parts declaring more bytes than this. Default: `limits.maxTotalUncompressedBytes`. */
  maxBytes?: number
}

/**
 * Streams one part (e.g. `ppt/media/image1.png`, as returned by `readPresentation`) out of the
 * package, inflated. Part names are matched case-insensitively, with or without a leading '/'.
 * The archive is closed when the stream ends or is destroyed: consume or destroy it.
 * Stream errors (a part that fails to inflate or lies about its size) are `unprocessable`
 * AppErrors; an absent part is `not_found`.
 */
export function extractPart(
  path: string,
  partName: string,
  options?: ExtractOptions,
): Promise<Readable> {
  const limits = resolveLimits(options?.limits)
  const maxBytes = options?.maxBytes ?? limits.maxTotalUncompressedBytes
  return guarded(async () => {
    await sniffZipFile(path)
    const zip = await ZipArchive.open(path, limits)
    try {
      const found = zip.find(partName)
      if (!found) throw new AppError('not_found', `The presentation has no part named ${partName}.`)
      if (found.size > maxBytes) throw oversized(found.name, found.size)
      const source = await zip.stream(found.name)
      return Readable.from(guard(source, found.name), { objectMode: false })
    } finally {
      // Safe while the stream is open: yauzl closes the file once the stream is done.
      zip.close()
    }
  })
}

async function* guard(source: Readable, name: string): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) yield chunk
  } catch (err) {
    if (isAppError(err)) throw err
    throw corrupt(`part ${name} cannot be unpacked`, err)
  }
}
