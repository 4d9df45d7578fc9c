import type { Readable } from 'node:stream'
import type { BlobStore } from '../../infra/blobs/blob-store.ts'

export interface ParallelPutOptions {
  /** Writes in flight at once. Default 32. */
  concurrency?: number
  /** Files up to this size are read into memory and written in the background. Default 1 MiB. */
  smallFileBytes?: number
  /** Bytes held in memory by background writes at most. Default 32 MiB. */
  maxBufferedBytes?: number
}

/**
 * Stores a zip's entries as they stream out one at a time, overlapping the writes of small
 * files. Unpacking is sequential, but each stored file costs several filesystem round trips
 * (or one S3 request); running those in parallel is what brings ingest close to `unzip`.
 * Memory stays bounded by `maxBufferedBytes` whatever the package size; large files are
 * streamed straight through. Writes skip their own fsync (`deferSync`) and, for small files, the
 * temp-file-and-rename (`inPlace`): nothing reads a version's folder before the version is
 * registered, and a failed ingest deletes the folder. The caller flushes the store once at the end.
 */
export class ParallelPut {
  readonly #blobs: BlobStore
  readonly #concurrency: number
  readonly #smallFileBytes: number
  readonly #maxBufferedBytes: number
  readonly #inFlight = new Set<Promise<void>>()
  #bufferedBytes = 0
  #failure: unknown = null

  constructor(blobs: BlobStore, options: ParallelPutOptions = {}) {
    this.#blobs = blobs
    this.#concurrency = options.concurrency ?? 32
    this.#smallFileBytes = options.smallFileBytes ?? 1024 * 1024
    this.#maxBufferedBytes = options.maxBufferedBytes ?? 32 * 1024 * 1024
  }

  /** Consumes `stream` (so the unzipper can move on) and stores it under `key`. */
  async put(key: string, stream: Readable, declaredSize: number): Promise<void> {
    this.#throwIfFailed()
    if (declaredSize > this.#smallFileBytes) {
      await this.#waitFor(() => this.#inFlight.size === 0)
      await this.#blobs.put(key, stream, { contentLength: declaredSize, deferSync: true })
      return
    }
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    const body = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks)
    await this.#waitFor(
      () =>
        this.#inFlight.size < this.#concurrency &&
        this.#bufferedBytes + body.length <= this.#maxBufferedBytes,
    )
    this.#throwIfFailed()
    this.#bufferedBytes += body.length
    const write: Promise<void> = this.#blobs
      .put(key, body, { contentLength: body.length, deferSync: true, inPlace: true })
      .then(
        () => {},
        (err: unknown) => {
          this.#failure ??= err
        },
      )
      .finally(() => {
        this.#bufferedBytes -= body.length
        this.#inFlight.delete(write)
      })
    this.#inFlight.add(write)
  }

  /** Waits for every background write; rethrows the first failure. Writes are not yet durable. */
  async finish(): Promise<void> {
    await Promise.all(this.#inFlight)
    this.#throwIfFailed()
  }

  async #waitFor(ready: () => boolean): Promise<void> {
    while (!ready() && this.#inFlight.size > 0) await Promise.race(this.#inFlight)
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure
  }
}
