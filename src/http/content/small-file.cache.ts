import type { Readable } from 'node:stream'
import type { BlobMeta } from '../../infra/blobs/blob-store.ts'

export interface CachedFile {
  meta: BlobMeta
  bytes: Buffer
}

export interface SmallFileCacheOptions {
  /** Largest file kept, in bytes. Default 128 KiB: pages, scripts, styles, most images. */
  maxFileBytes?: number
  /** Memory held at most, in bytes. Default 32 MiB. */
  maxTotalBytes?: number
  /**
   * How long an entry is served without asking the store again, in ms. Default 60 s: the
   * files of a version never change, so this only bounds how long a deleted version's files
   * stay readable (to holders of a still-valid token).
   */
  ttlMs?: number
}

interface Entry extends CachedFile {
  expiresAt: number
}

/**
 * The small files of recently served versions, in memory (least recently used go first).
 * A course page pulls dozens of small files and every learner pulls the same ones; from the
 * fs backend each costs several syscalls (path checks, open, stat, read, close), from S3 a
 * round trip. Large files (video, audio) are never held: they are always streamed from the
 * store. Per process and only a cache — nothing depends on it being warm or shared.
 */
export class SmallFileCache {
  readonly maxFileBytes: number
  readonly #maxTotalBytes: number
  readonly #ttlMs: number
  readonly #entries = new Map<string, Entry>()
  #totalBytes = 0

  constructor(options: SmallFileCacheOptions = {}) {
    this.maxFileBytes = options.maxFileBytes ?? 128 * 1024
    this.#maxTotalBytes = options.maxTotalBytes ?? 32 * 1024 * 1024
    this.#ttlMs = options.ttlMs ?? 60_000
  }

  get size(): number {
    return this.#entries.size
  }

  /** A fresh entry for `key`, marked as just used; expired entries are dropped. */
  get(key: string, now: number): CachedFile | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    this.#remove(key, entry)
    if (entry.expiresAt <= now) return undefined
    this.#entries.set(key, entry)
    this.#totalBytes += entry.bytes.length
    return entry
  }

  /** Whether a file of `size` bytes would be kept. */
  accepts(size: number): boolean {
    return size <= this.maxFileBytes && size <= this.#maxTotalBytes
  }

  set(key: string, file: CachedFile, now: number): void {
    if (!this.accepts(file.bytes.length)) return
    const previous = this.#entries.get(key)
    if (previous) this.#remove(key, previous)
    this.#entries.set(key, { ...file, expiresAt: now + this.#ttlMs })
    this.#totalBytes += file.bytes.length
    for (const [oldKey, oldest] of this.#entries) {
      if (this.#totalBytes <= this.#maxTotalBytes) break
      this.#remove(oldKey, oldest)
    }
  }

  #remove(key: string, entry: Entry): void {
    this.#entries.delete(key)
    this.#totalBytes -= entry.bytes.length
  }
}

/** Reads a body known to be `size` bytes (small: the cache's limit); fails if it is not. */
export async function readSmallBody(body: Readable, size: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of body) {
    total += (chunk as Buffer).length
    if (total > size) {
      body.destroy()
      break
    }
    chunks.push(chunk as Buffer)
  }
  if (total !== size) throw new Error(`blob body was ${total} bytes, expected ${size}`)
  return Buffer.concat(chunks, total)
}

/** Metadata only, so a cached entry does not keep the store's stream object alive. */
export function metaOnly(meta: BlobMeta): BlobMeta {
  const copy: BlobMeta = {
    key: meta.key,
    size: meta.size,
    etag: meta.etag,
    lastModified: meta.lastModified,
  }
  if (meta.contentType !== undefined) copy.contentType = meta.contentType
  return copy
}
