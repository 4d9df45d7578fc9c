import { S3Client } from '@aws-sdk/client-s3'
import type { Clock } from '../../shared/clock.ts'
import type { BlobMeta } from './blob-store.ts'
import { asStorageError } from './storage-unavailable.ts'

export interface S3BlobStoreOptions {
  /** `s3://bucket` or `s3://bucket/prefix` (STORAGE_URL). */
  url: string
  /** For S3-compatible stores (AWS_ENDPOINT_URL). Default: AWS. */
  endpoint?: string
  /** Default `us-east-1` (what most S3-compatible stores accept). */
  region?: string
  /** Default: the SDK's provider chain (environment, profile, instance role…). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  /** `https://host/bucket/key` instead of `https://bucket.host/key`. Default false. */
  forcePathStyle?: boolean
  /** Largest body put() buffers when it is not given `contentLength`. Default 64 MiB. */
  maxBufferedPutBytes?: number
  /**
   * When the SDK adds CRC32 checksums. Default `WHEN_REQUIRED`: the SDK's own default
   * (`WHEN_SUPPORTED`) sends streamed bodies `aws-chunked` with a trailing checksum and puts an
   * empty-body checksum into presigned URLs, which many S3-compatible stores mishandle.
   */
  checksums?: 'WHEN_REQUIRED' | 'WHEN_SUPPORTED'
  /** Default: the system clock (used as the presigning date). */
  clock?: Clock
  /**
   * How long to wait for a connection to the store before the request fails (as
   * `storage_unavailable`). Default 5 000 ms; without it an unreachable host that drops packets
   * holds requests until the kernel gives up (minutes).
   */
  connectTimeoutMs?: number
  /**
   * Where the SDK's own warnings go (a pino logger fits). Default: dropped; the SDK would
   * otherwise print some of them to the console.
   */
  logger?: SdkLogger
}

export interface SdkLogger {
  debug(...content: unknown[]): void
  info(...content: unknown[]): void
  warn(...content: unknown[]): void
  error(...content: unknown[]): void
}

const quiet: SdkLogger = { debug() {}, info() {}, warn() {}, error() {} }

/** The SDK client `S3BlobStore` talks through, with the options' defaults applied. */
export function createS3Client(options: S3BlobStoreOptions): S3Client {
  const checksums = options.checksums ?? 'WHEN_REQUIRED'
  return new S3Client({
    region: options.region ?? 'us-east-1',
    forcePathStyle: options.forcePathStyle ?? false,
    followRegionRedirects: true,
    logger: options.logger ?? quiet,
    requestChecksumCalculation: checksums,
    responseChecksumValidation: checksums,
    requestHandler: { connectionTimeout: options.connectTimeoutMs ?? 5000 },
    ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
    ...(options.credentials !== undefined && { credentials: options.credentials }),
  })
}

export function rethrow(err: unknown): never {
  throw asStorageError(err)
}

export function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode
}

export function isNoSuchKey(err: unknown): boolean {
  const name = (err as Error | null)?.name
  return (
    name === 'NoSuchKey' ||
    name === 'NotFound' ||
    (name !== 'NoSuchBucket' && statusOf(err) === 404)
  )
}

export function metaOf(
  key: string,
  out: { ETag?: string; LastModified?: Date; ContentType?: string },
  size: number,
): BlobMeta {
  const meta: BlobMeta = {
    key,
    size,
    etag: out.ETag ?? '""',
    lastModified: out.LastModified ?? new Date(0),
  }
  if (out.ContentType) meta.contentType = out.ContentType
  return meta
}
