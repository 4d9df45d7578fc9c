import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { pipeline, Readable } from 'node:stream'
import { pipeline as pipelineAsync } from 'node:stream/promises'
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, systemClock } from '../../shared/clock.ts'
import type { BlobMeta, BlobObject, BlobStore, PutOptions, UploadUrl } from './blob-store.ts'
import { assertValidRange } from './byte-range.ts'
import { lengthGuard } from './length-guard.ts'
import { lookupMimeType } from './mime-types.ts'
import {
  createS3Client,
  isNoSuchKey,
  metaOf,
  rethrow,
  type S3BlobStoreOptions,
  statusOf,
} from './s3-client.ts'
import { presignPut } from './s3-upload-url.ts'
import { parseS3Url } from './s3-url.ts'
import { assertSafeKey, keyProblem, splitSafePrefix } from './safe-path.ts'
import { asStorageError } from './storage-unavailable.ts'
import type { UploadRequest } from './upload-request.ts'

export type { S3BlobStoreOptions, SdkLogger } from './s3-client.ts'
export { parseS3Url }

/** Blobs in one bucket under an optional key prefix; any S3-compatible store. */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const
  readonly bucket: string
  readonly prefix: string
  readonly client: S3Client
  readonly #maxBuffered: number
  readonly #clock: Clock

  constructor(options: S3BlobStoreOptions) {
    const { bucket, prefix } = parseS3Url(options.url)
    this.bucket = bucket
    this.prefix = prefix
    this.#maxBuffered = options.maxBufferedPutBytes ?? 64 * 1024 * 1024
    this.#clock = options.clock ?? systemClock
    this.client = createS3Client(options)
  }

  #full(key: string): string {
    return `${this.prefix}${key}`
  }

  /** S3 acknowledges a PUT only once it is durable: nothing to do. */
  async flush(): Promise<void> {}

  async putFile(key: string, path: string, options: PutOptions = {}): Promise<{ size: number }> {
    const { size } = await stat(path)
    return this.put(key, createReadStream(path), { ...options, contentLength: size })
  }

  async put(
    key: string,
    body: Readable | Buffer,
    options: PutOptions = {},
  ): Promise<{ size: number }> {
    assertSafeKey(key)
    const expected = options.contentLength
    const contentType = options.contentType ?? lookupMimeType(key)
    const input = {
      Bucket: this.bucket,
      Key: this.#full(key),
      ...(contentType !== undefined && { ContentType: contentType }),
    }
    if (Buffer.isBuffer(body) || expected === undefined) {
      const bytes = Buffer.isBuffer(body) ? body : await this.#buffer(body)
      if (expected !== undefined && bytes.length !== expected) {
        throw new AppError('invalid_request', `Body is ${bytes.length} bytes, declared ${expected}`)
      }
      await this.client
        .send(new PutObjectCommand({ ...input, Body: bytes, ContentLength: bytes.length }))
        .catch(rethrow)
      return { size: bytes.length }
    }
    // Known length: stream it. The SDK pipes the body without watching it for errors, so a
    // failing or wrong-sized body aborts the request; S3 then stores nothing.
    const guard = lengthGuard({ expected })
    const abort = new AbortController()
    let bodyError: unknown
    pipeline(body, guard, (err) => {
      if (err) {
        bodyError = err
        abort.abort(err)
      }
    })
    try {
      await this.client.send(
        new PutObjectCommand({ ...input, Body: guard, ContentLength: expected }),
        {
          abortSignal: abort.signal,
        },
      )
    } catch (err) {
      guard.destroy()
      throw bodyError ?? asStorageError(err)
    }
    return { size: expected }
  }

  /** Unknown length: S3 needs one up front (no multipart without @aws-sdk/lib-storage). */
  async #buffer(body: Readable): Promise<Buffer> {
    const chunks: Buffer[] = []
    await pipelineAsync(body, lengthGuard({ max: this.#maxBuffered }), async (source) => {
      for await (const chunk of source) chunks.push(chunk as Buffer)
    })
    return Buffer.concat(chunks)
  }

  async get(key: string, range?: { start: number; end?: number }): Promise<BlobObject | null> {
    assertSafeKey(key)
    if (range !== undefined) assertValidRange(range)
    let out: GetObjectCommandOutput
    try {
      out = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.#full(key),
          ...(range && { Range: `bytes=${range.start}-${range.end ?? ''}` }),
        }),
      )
    } catch (err) {
      if (isNoSuchKey(err)) return null
      if (range && (statusOf(err) === 416 || (err as Error).name === 'InvalidRange')) {
        const meta = await this.head(key)
        return meta && { ...meta, body: Readable.from([]), unsatisfiable: true }
      }
      throw asStorageError(err)
    }
    const body = out.Body
    if (!(body instanceof Readable)) throw new Error('S3 GetObject returned no Node stream')
    const served = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(out.ContentRange ?? '')
    if (served) {
      const [start, end, size] = [Number(served[1]), Number(served[2]), Number(served[3])]
      const meta = metaOf(key, out, size)
      // Some S3 look-alikes answer 206 `bytes 0-0/0` for an empty object instead of 416.
      if (start >= size) {
        body.destroy()
        return { ...meta, body: Readable.from([]), unsatisfiable: true }
      }
      return { ...meta, body, range: { start, end } }
    }
    const meta = metaOf(key, out, out.ContentLength ?? 0)
    if (!range) return { ...meta, body }
    // A store that answered a ranged request with the whole object (seen with empty objects).
    if (range.start >= meta.size) {
      body.destroy()
      return { ...meta, body: Readable.from([]), unsatisfiable: true }
    }
    if (range.start !== 0) {
      body.destroy()
      throw new Error(`S3 store ignored the Range header for ${key}`)
    }
    return { ...meta, body, range: { start: 0, end: meta.size - 1 } }
  }

  async head(key: string): Promise<BlobMeta | null> {
    assertSafeKey(key)
    try {
      const out = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.#full(key) }),
      )
      return metaOf(key, out, out.ContentLength ?? 0)
    } catch (err) {
      if (isNoSuchKey(err)) return null
      throw asStorageError(err)
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key)
    await this.client
      .send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.#full(key) }))
      .catch(rethrow)
  }

  async deletePrefix(prefix: string): Promise<void> {
    if (prefix === '') throw new AppError('invalid_request', 'Refusing to delete every blob')
    for await (const keys of this.#pages(prefix)) {
      if (keys.length === 0) continue
      const out = await this.client
        .send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: keys.map((key) => ({ Key: key })), Quiet: true },
          }),
        )
        .catch(rethrow)
      const first = out.Errors?.[0]
      if (first) {
        throw new Error(`S3 could not delete ${first.Key ?? '?'}: ${first.Code} ${first.Message}`)
      }
    }
  }

  async *list(prefix: string): AsyncIterable<string> {
    for await (const keys of this.#pages(prefix)) {
      for (const full of keys) {
        const key = full.slice(this.prefix.length)
        if (keyProblem(key) === null) yield key
      }
    }
  }

  /** Full keys (with the store prefix) under `prefix`, one ListObjectsV2 page (≤ 1000) at a time. */
  async *#pages(prefix: string): AsyncIterable<string[]> {
    splitSafePrefix(prefix)
    let token: string | undefined
    do {
      const out = await this.client
        .send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: this.#full(prefix),
            ...(token !== undefined && { ContinuationToken: token }),
          }),
        )
        .catch(rethrow)
      yield (out.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : []))
      token = out.IsTruncated ? out.NextContinuationToken : undefined
    } while (token !== undefined)
  }

  /** A presigned PUT (`presignPut`). */
  async createUploadUrl(key: string, options: UploadRequest): Promise<UploadUrl> {
    assertSafeKey(key)
    return presignPut(this.client, this.bucket, this.#full(key), options, this.#clock.now())
  }

  /**
   * One ListObjectsV2 of at most one key under the prefix (allowed wherever the store is usable
   * at all), bounded by `timeoutMs` (default 3 000). Throws `storage_unavailable` when the store
   * does not answer, or its own error (wrong bucket, credentials) when it answers no.
   */
  async checkHealth(timeoutMs = 3000): Promise<void> {
    const signal = AbortSignal.timeout(timeoutMs)
    const list = new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, MaxKeys: 1 })
    await this.client.send(list, { abortSignal: signal }).catch((err: unknown) => {
      if (signal.aborted) rethrow(signal.reason)
      rethrow(err)
    })
  }

  async close(): Promise<void> {
    this.client.destroy()
  }
}
