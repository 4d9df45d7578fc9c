import { close, fstat, open, read } from 'node:fs'
import { Readable } from 'node:stream'
import { promisify } from 'node:util'
import yauzl from 'yauzl'

const BLOCK = 256 * 1024
/** Entry data is streamed in chunks this large: few system calls, bounded memory. */
const DATA_CHUNK = 512 * 1024
/**
 * Reads up to one block long (headers, and the data of small entries, which zips store one
 * after the other) are served from cached blocks; at most this many are kept (4 MiB).
 */
const MAX_BLOCKS = 16
/** Entries up to this size are read through the block cache instead of their own reads. */
const SMALL_RANGE = BLOCK

type ReadCallback = (err: Error | null, bytesRead?: number) => void
type RawRead = (buf: Buffer, length: number, position: number, cb: ReadCallback) => void

/**
 * A yauzl RandomAccessReader over a file descriptor that serves the many tiny header reads
 * (two per central-directory entry, two per local header) from 64 KiB cached blocks instead of
 * one system call each. Entry data still streams straight from the file, in large chunks. This
 * keeps probing a deck with hundreds of parts at a few milliseconds, and makes unpacking an
 * upload of thousands of files a fraction of the cost of one read per header.
 */
export class CachedFileReader extends yauzl.RandomAccessReader {
  readonly #fd: number
  readonly #blocks = new Map<number, Promise<Buffer>>()
  /** Reads still running; the descriptor is closed only after they finish (no fd reuse races). */
  #inflight = 0
  #closeRequested: ((err: Error | null) => void) | null = null

  private constructor(fd: number) {
    super()
    this.#fd = fd
  }

  /** Opens the file; the reader owns the descriptor and closes it when yauzl is done. */
  static async open(path: string): Promise<{ reader: CachedFileReader; size: number }> {
    const fd = await promisify(open)(path, 'r')
    try {
      const { size } = await promisify(fstat)(fd)
      return { reader: new CachedFileReader(fd), size }
    } catch (err) {
      close(fd, () => {})
      throw err
    }
  }

  override _readStreamForRange(start: number, end: number): Readable {
    if (end - start <= SMALL_RANGE) {
      const copy = (buf: Buffer, length: number, position: number, cb: ReadCallback) =>
        this.read(buf, 0, length, position, cb)
      return new RangeStream(copy, start, end)
    }
    return new RangeStream(this.#rawRead, start, end)
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: ReadCallback,
  ): void {
    if (length > BLOCK) {
      this.#rawRead(buffer.subarray(offset), length, position, callback)
      return
    }
    this.#copy(buffer, offset, length, position).then(
      (n) => callback(null, n),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    )
  }

  override close(callback: (err: Error | null) => void): void {
    this.#blocks.clear()
    this.#closeRequested = callback
    this.#closeIfIdle()
  }

  #closeIfIdle(): void {
    const callback = this.#closeRequested
    if (!callback || this.#inflight > 0) return
    this.#closeRequested = null
    close(this.#fd, (err) => callback(err))
  }

  readonly #rawRead: RawRead = (buf, length, position, cb) => {
    this.#inflight += 1
    read(this.#fd, buf, 0, length, position, (err, n) => {
      this.#inflight -= 1
      cb(err, n)
      this.#closeIfIdle()
    })
  }

  async #copy(target: Buffer, offset: number, length: number, position: number): Promise<number> {
    let copied = 0
    while (copied < length) {
      const at = position + copied
      const index = Math.floor(at / BLOCK)
      const block = await this.#block(index)
      const from = at - index * BLOCK
      if (from >= block.length) break // end of file
      const n = block.copy(
        target,
        offset + copied,
        from,
        Math.min(block.length, from + length - copied),
      )
      copied += n
    }
    return copied
  }

  #block(index: number): Promise<Buffer> {
    let block = this.#blocks.get(index)
    if (!block) {
      if (this.#blocks.size >= MAX_BLOCKS) {
        const oldest = this.#blocks.keys().next().value
        if (oldest !== undefined) this.#blocks.delete(oldest)
      }
      // Only the bytes read are ever handed out (subarray below), so no zero-fill is needed.
      const buf = Buffer.allocUnsafe(BLOCK)
      block = new Promise<Buffer>((resolve, reject) => {
        this.#rawRead(buf, BLOCK, index * BLOCK, (err, n) =>
          err ? reject(err) : resolve(buf.subarray(0, n ?? 0)),
        )
      })
      this.#blocks.set(index, block)
      block.catch(() => this.#blocks.delete(index))
    }
    return block
  }
}

/** Streams [start, end) of the file; destroying it never closes the shared descriptor. */
class RangeStream extends Readable {
  readonly #read: RawRead
  #position: number
  readonly #end: number

  constructor(rawRead: RawRead, start: number, end: number) {
    super({ highWaterMark: DATA_CHUNK })
    this.#read = rawRead
    this.#position = start
    this.#end = end
  }

  override _read(size: number): void {
    const length = Math.min(size, this.#end - this.#position)
    if (length <= 0) {
      this.push(null)
      return
    }
    const buf = Buffer.allocUnsafe(length)
    this.#read(buf, length, this.#position, (err, n = 0) => {
      if (this.destroyed) return
      if (err) return void this.destroy(err)
      if (n === 0) return void this.push(null)
      this.#position += n
      this.push(buf.subarray(0, n))
    })
  }
}
