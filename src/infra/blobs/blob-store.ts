import type { Readable } from 'node:stream'

/** Metadata of a stored object. */
export interface BlobMeta {
  key: string
  size: number
  /** Strong validator, quoted as an HTTP ETag (`"…"`). */
  etag: string
  lastModified: Date
  contentType?: string
}

export interface BlobObject extends BlobMeta {
  /** The bytes, or the requested range of them. The caller must consume or destroy it. */
  body: Readable
  /** Inclusive byte range actually returned when a range was asked for. */
  range?: { start: number; end: number }
  /**
   * Set when a range was asked for but `start >= size` (always so for an empty object): the body
   * is empty, `range` is absent and `size` is the whole object's, so the caller can answer 416
   * with `Content-Range: bytes *\/size`.
   */
  unsatisfiable?: true
}

export interface PutOptions {
  /**
   * Skip making this object durable on its own; the caller calls `flush()` once after a batch
   * of puts, before relying on them. Default false (each put is durable when it resolves).
   */
  deferSync?: boolean
  /**
   * Write straight to the key instead of through a temp file and a rename: only for keys no
   * reader can see yet (a package version's folder before the version is registered), whose
   * partial writes the caller removes on failure. Default false.
   */
  inPlace?: boolean
  /**
   * Default: guessed from the key's extension (`mime-types.ts`). Only S3 persists it; the fs
   * backend always reports the guess.
   */
  contentType?: string
  /**
   * Known length; lets the S3 backend stream instead of buffering. When given, a body of any
   * other length fails the put (nothing is stored).
   */
  contentLength?: number
}

/** A time-limited URL a client can PUT bytes to, with the headers it must send. */
export interface UploadUrl {
  url: string
  headers: Record<string, string>
  expiresAt: Date
}

/**
 * Where package files, original zips and uploads live. Keys are `/`-separated relative paths
 * (`{tenant}/{mode}/packages/{packageId}/{versionId}/{path}`); a backend must refuse keys that
 * are absolute or contain `..` segments (both use `assertSafeKey` from `safe-path.ts`, and throw
 * AppError `invalid_request`).
 *
 * Writes are atomic per object: a reader sees the old object, the new one, or none — never a
 * partial one.
 *
 * A store that cannot be reached fails any method with AppError `storage_unavailable` (503 with
 * Retry-After), never with a transport's own error.
 */
export interface BlobStore {
  readonly kind: 'fs' | 's3'
  put(key: string, body: Readable | Buffer, options?: PutOptions): Promise<{ size: number }>
  /** Makes every completed put durable (after puts with `deferSync`). */
  flush(): Promise<void>
  /** Stores a local file as `key` (the fs backend copies it in the kernel, not through JS). */
  putFile(key: string, path: string, options?: PutOptions): Promise<{ size: number }>
  /** Null when absent. `range.end` is inclusive; ranges past the end are clamped. */
  get(key: string, range?: { start: number; end?: number }): Promise<BlobObject | null>
  head(key: string): Promise<BlobMeta | null>
  delete(key: string): Promise<void>
  /**
   * Deletes every object whose key starts with `prefix` (a string prefix, as in S3; used to undo
   * a refused upload). The empty prefix is refused rather than wiping the store.
   */
  deletePrefix(prefix: string): Promise<void>
  /** Every key starting with `prefix` (string prefix, recursive), in no particular order. */
  list(prefix: string): AsyncIterable<string>
  /** A URL a client can PUT one object to, directly or through the service (fs backend). */
  createUploadUrl(
    key: string,
    options: { contentType?: string; contentLength?: number; expiresInSeconds: number },
  ): Promise<UploadUrl>
  /**
   * A cheap probe that the store answers (for readiness checks): resolves, or throws AppError
   * `storage_unavailable` when it cannot be reached within a few seconds.
   */
  checkHealth(): Promise<void>
  close?(): Promise<void>
}
