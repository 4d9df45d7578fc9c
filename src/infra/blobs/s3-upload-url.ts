import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import type { UploadUrl } from './blob-store.ts'
import { assertValidUploadRequest, type UploadRequest } from './upload-request.ts'

/** What the SDK signs for a PutObject without a type; a presigned PUT must then send it. */
const DEFAULT_UPLOAD_CONTENT_TYPE = 'application/octet-stream'

/**
 * A presigned PUT. Content-Type and Content-Length are signed, so the client must send exactly
 * those: the returned `headers` are every header the signature covers (besides Host), with the
 * values signed — the SDK signs `application/octet-stream` when no type is given, and S3 refuses
 * a PUT that leaves a signed header out. Browsers and fetch() set Content-Length themselves.
 */
export async function presignPut(
  client: S3Client,
  bucket: string,
  fullKey: string,
  options: UploadRequest,
  signingDate: Date,
): Promise<UploadUrl> {
  assertValidUploadRequest(options)
  const { contentLength, expiresInSeconds } = options
  const contentType = options.contentType ?? DEFAULT_UPLOAD_CONTENT_TYPE
  const command = new PutObjectCommand({
    Bucket: bucket,
    Key: fullKey,
    ContentType: contentType,
    ...(contentLength !== undefined && { ContentLength: contentLength }),
  })
  const url = await getSignedUrl(client, command, {
    expiresIn: expiresInSeconds,
    signingDate,
    signableHeaders: new Set(['content-type', 'content-length']),
  })
  const values: Record<string, [string, string] | undefined> = {
    'content-type': ['Content-Type', contentType],
    'content-length':
      contentLength === undefined ? undefined : ['Content-Length', String(contentLength)],
  }
  const headers: Record<string, string> = {}
  const signed = new URL(url).searchParams.get('X-Amz-SignedHeaders')?.split(';') ?? []
  for (const name of signed) {
    if (name === 'host') continue
    const header = values[name]
    // A header the client cannot be told about would make every PUT fail: refuse to issue it.
    if (!header) throw new Error(`presigned PUT signs ${name}, which the client would not send`)
    headers[header[0]] = header[1]
  }
  return {
    url,
    headers,
    expiresAt: new Date(signingDate.getTime() + expiresInSeconds * 1000),
  }
}
