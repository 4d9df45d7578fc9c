import { createHash } from 'node:crypto'
import type { BigIntStats, Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/app-error.ts'
import type { BlobMeta } from './blob-store.ts'
import { lookupMimeType } from './mime-types.ts'
import { keyProblem, TEMP_PREFIX } from './safe-path.ts'

// What the fs blob store knows about files on disk: errno codes, an object's metadata from its
// stats, and walking a folder for keys.

export function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code
}

export function isMissing(err: unknown): boolean {
  const code = errnoCode(err)
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** A file/directory clash (`a` stored, then `a/b`, or the reverse), which S3 would allow. */
export function collision(key: string, err: unknown): AppError | null {
  const code = errnoCode(err)
  if (code !== 'EISDIR' && code !== 'ENOTDIR' && code !== 'EEXIST' && code !== 'ENOTEMPTY') {
    return null
  }
  return new AppError('conflict', `Blob key ${JSON.stringify(key)} collides with another key`, {
    key,
  })
}

/**
 * The ETag is derived from (device, inode, size, mtime in ns) rather than a content hash: no
 * sidecar files and no read of the bytes, and it is still strong because objects are never
 * written in place — every put renames a fresh file in, giving a new inode and mtime.
 */
export function metaOf(key: string, stats: BigIntStats): BlobMeta {
  const identity = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`
  const digest = createHash('sha256').update(identity).digest('base64url').slice(0, 27)
  const meta: BlobMeta = {
    key,
    size: Number(stats.size),
    etag: `"${digest}"`,
    lastModified: new Date(Number(stats.mtimeMs)),
  }
  const contentType = lookupMimeType(key)
  if (contentType) meta.contentType = contentType
  return meta
}

export async function readdirOrEmpty(path: string): Promise<Dirent[]> {
  try {
    return await readdir(path, { withFileTypes: true })
  } catch (err) {
    if (isMissing(err)) return []
    throw err
  }
}

/** Regular files only: symlinks are not followed, temp files and unusable names are skipped. */
export async function* walk(
  dirPath: string,
  keyPrefix: string,
  namePrefix: string,
): AsyncIterable<string> {
  for (const entry of await readdirOrEmpty(dirPath)) {
    if (entry.name.startsWith(TEMP_PREFIX) || !entry.name.startsWith(namePrefix)) continue
    const key = `${keyPrefix}${entry.name}`
    if (keyProblem(key) !== null) continue
    if (entry.isDirectory()) yield* walk(join(dirPath, entry.name), `${key}/`, '')
    else if (entry.isFile()) yield key
  }
}
