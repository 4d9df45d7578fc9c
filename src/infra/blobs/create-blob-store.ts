import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Clock } from '../../shared/clock.ts'
import type { BlobStore } from './blob-store.ts'
import { FsBlobStore } from './fs-blob-store.ts'
import { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.ts'

export interface BlobStoreConfig {
  /**
   * STORAGE_URL. Absent: files under `${dataDir}/blobs`. `file:///abs/dir`: files under that
   * directory. `s3://bucket/prefix`: S3 (or any S3-compatible store, see `s3`).
   */
  storageUrl?: string
  /** DATA_DIR; the fs default root is `${dataDir}/blobs`. */
  dataDir: string
  /** PUBLIC_URL; fs upload URLs are `${publicUrl}/uploads/${token}`. */
  publicUrl: string
  /** Secret of fs upload tokens (at least 16 bytes). */
  uploadSecret: string
  /** AWS_ENDPOINT_URL, AWS_REGION, credentials, S3_FORCE_PATH_STYLE, read by the entry point. */
  s3?: Omit<S3BlobStoreOptions, 'url' | 'clock'>
  /** Default: the system clock. */
  clock?: Clock
}

/** Picks the backend once, from STORAGE_URL. Throws a message naming STORAGE_URL otherwise. */
export function createBlobStore(config: BlobStoreConfig): BlobStore {
  const { storageUrl, dataDir, publicUrl, uploadSecret, clock } = config
  const common = { publicUrl, uploadSecret, ...(clock && { clock }) }
  if (storageUrl === undefined || storageUrl === '') {
    return new FsBlobStore({ root: join(dataDir, 'blobs'), ...common })
  }
  if (storageUrl.startsWith('file:')) {
    let root: string
    try {
      root = fileURLToPath(storageUrl)
    } catch (err) {
      throw new Error(
        `STORAGE_URL is not a usable file:// URL (${(err as Error).message}): ${storageUrl}`,
      )
    }
    return new FsBlobStore({ root, ...common })
  }
  if (storageUrl.startsWith('s3:')) {
    return new S3BlobStore({ url: storageUrl, ...config.s3, ...(clock && { clock }) })
  }
  throw new Error(
    `STORAGE_URL must be file:///absolute/dir or s3://bucket/prefix (or unset for ${join(dataDir, 'blobs')}), got ${storageUrl}`,
  )
}
