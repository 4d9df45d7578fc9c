import { keyProblem } from './safe-path.ts'

const BUCKET = /^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/

/** `s3://bucket/some/prefix` → `{ bucket, prefix: 'some/prefix/' }` (prefix '' when absent). */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/?#]+)(?:\/([^?#]*))?$/.exec(url)
  const bucket = match?.[1]
  if (!bucket || !BUCKET.test(bucket)) {
    throw new Error(`STORAGE_URL must look like s3://bucket/optional/prefix, got ${url}`)
  }
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '')
  if (prefix !== '' && keyProblem(prefix) !== null) {
    throw new Error(`STORAGE_URL has an unusable prefix (${keyProblem(prefix)}): ${url}`)
  }
  return { bucket, prefix: prefix === '' ? '' : `${prefix}/` }
}
