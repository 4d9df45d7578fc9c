import type { BlobMeta, BlobStore } from '../../infra/blobs/blob-store.ts'
import {
  type CachedFile,
  metaOnly,
  readSmallBody,
  type SmallFileCache,
} from './small-file.cache.ts'

/** Block size of the media cache: players ask for video and audio in ranges about this big. */
export const MEDIA_BLOCK_BYTES = 1024 * 1024
/** Memory the media cache holds at most. */
export const MEDIA_CACHE_BYTES = 64 * 1024 * 1024
/** A range needing more blocks than this is streamed from the store instead. */
const MAX_BLOCKS_PER_RANGE = 2

export type BlockRead =
  | { kind: 'bytes'; file: CachedFile; start: number; end: number }
  | { kind: 'missing' }
  | { kind: 'unsatisfiable'; size: number }
  /** Too large a range for blocks (an open-ended `bytes=0-`): stream it. */
  | { kind: 'stream' }

/** A range held by blocks already in memory, as `cachedBlockRange` finds it. */
export interface CachedBlockRange {
  /** The first block's: each block carries the file's metadata. */
  head: CachedFile
  meta: BlobMeta
  /** The range's bytes in order, one slice per block (no copy). */
  parts: Buffer[]
  start: number
  /** Inclusive, clamped to the file. */
  end: number
}

/** The cache key of a file's block `index`. */
function blockKey(key: string, index: number): string {
  return `${key}\u0000${index}`
}

/**
 * Ranges of large files (video, audio) from fixed-size blocks kept in memory, in a
 * `SmallFileCache` whose largest file is one block. Every learner of a course asks for the same
 * ranges of the same media; from the fs store each costs an open, a read into a fresh buffer and
 * a close, and from S3 a round trip. A block is keyed by blob key and index, and holds the
 * file's metadata, so ranges, ETags and sizes come out exactly as from the store.
 */
export async function readRangeFromBlocks(
  blobs: BlobStore,
  blocks: SmallFileCache,
  key: string,
  wanted: { start: number; end?: number },
  now: number,
): Promise<BlockRead> {
  const blockBytes = blocks.maxFileBytes
  const first = Math.floor(wanted.start / blockBytes)
  const head = await block(blobs, blocks, key, first, now)
  if (head.kind !== 'bytes') return head
  const { size } = head.file.meta
  if (wanted.start >= size) return { kind: 'unsatisfiable', size }
  const end = Math.min(wanted.end ?? size - 1, size - 1)
  const last = Math.floor(end / blockBytes)
  if (last - first + 1 > MAX_BLOCKS_PER_RANGE) return { kind: 'stream' }
  const parts = [head.file.bytes]
  for (let index = first + 1; index <= last; index++) {
    const next = await block(blobs, blocks, key, index, now)
    // The file changed under us (it never should: versions are immutable): let the store answer.
    if (next.kind !== 'bytes' || next.file.meta.etag !== head.file.meta.etag) {
      return { kind: 'stream' }
    }
    parts.push(next.file.bytes)
  }
  const offset = first * blockBytes
  const joined = parts.length === 1 ? parts[0] : Buffer.concat(parts)
  const bytes = (joined as Buffer).subarray(wanted.start - offset, end - offset + 1)
  return { kind: 'bytes', file: { meta: head.file.meta, bytes }, start: wanted.start, end }
}

/**
 * Blocks being read from the store, per cache: a seeking player, or a class starting the same
 * video, asks for one block many times at once, and each ask would otherwise read the whole
 * block from the store again (a megabyte each) until the first read lands in the cache.
 */
const loading = new WeakMap<SmallFileCache, Map<string, Promise<BlockRead>>>()

async function block(
  blobs: BlobStore,
  blocks: SmallFileCache,
  key: string,
  index: number,
  now: number,
): Promise<BlockRead> {
  const id = blockKey(key, index)
  const cached = blocks.get(id, now)
  if (cached) return { kind: 'bytes', file: cached, start: 0, end: cached.bytes.length - 1 }
  let pending = loading.get(blocks)
  if (!pending) {
    pending = new Map()
    loading.set(blocks, pending)
  }
  const running = pending.get(id)
  if (running) return running
  const reads = pending
  const read = readBlock(blobs, blocks, key, index, id, now).finally(() => reads.delete(id))
  reads.set(id, read)
  return read
}

/**
 * The bytes `readRangeFromBlocks` would find for `start`–`end` (inclusive; absent: to the end),
 * without waiting: only when every block is already in memory, the range needs no more blocks
 * than it would read, and `start` lies inside the file. Null otherwise — a missing block, an
 * unsatisfiable range or a file that changed are for the store to answer.
 */
export function cachedBlockRange(
  blocks: SmallFileCache,
  key: string,
  start: number,
  end: number | undefined,
  now: number,
): CachedBlockRange | null {
  const blockBytes = blocks.maxFileBytes
  const first = Math.floor(start / blockBytes)
  const head = blocks.get(blockKey(key, first), now)
  if (!head) return null
  const { meta } = head
  if (start >= meta.size) return null
  const last = Math.min(end ?? meta.size - 1, meta.size - 1)
  const lastBlock = Math.floor(last / blockBytes)
  if (lastBlock - first + 1 > MAX_BLOCKS_PER_RANGE) return null
  const offset = first * blockBytes
  if (lastBlock === first) {
    const parts = [head.bytes.subarray(start - offset, last - offset + 1)]
    return { head, meta, parts, start, end: last }
  }
  const parts = [head.bytes.subarray(start - offset)]
  for (let index = first + 1; index <= lastBlock; index++) {
    const next = blocks.get(blockKey(key, index), now)
    if (next?.meta.etag !== meta.etag) return null
    const blockStart = index * blockBytes
    parts.push(next.bytes.subarray(0, Math.min(last, blockStart + blockBytes - 1) - blockStart + 1))
  }
  return { head, meta, parts, start, end: last }
}

async function readBlock(
  blobs: BlobStore,
  blocks: SmallFileCache,
  key: string,
  index: number,
  id: string,
  now: number,
): Promise<BlockRead> {
  const start = index * blocks.maxFileBytes
  const object = await blobs.get(key, { start, end: start + blocks.maxFileBytes - 1 })
  if (!object) return { kind: 'missing' }
  if (object.unsatisfiable || !object.range) {
    object.body.destroy()
    return object.unsatisfiable ? { kind: 'unsatisfiable', size: object.size } : { kind: 'stream' }
  }
  const length = object.range.end - object.range.start + 1
  const file = { meta: metaOnly(object), bytes: await readSmallBody(object.body, length) }
  blocks.set(id, file, now)
  return { kind: 'bytes', file, start: 0, end: length - 1 }
}
