import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { FastifyRequest } from 'fastify'
import { AppError, isAppError } from '../shared/app-error.ts'
import { IdempotentReplay } from './plugins/idempotency.ts'
import { assertKeyTenant } from './plugins/tenant-guard.ts'

export interface ReceivedFile {
  path: string
  filename: string
  size: number
  /** SHA-256 of the file, hex. */
  sha256: string
  /** Text fields sent alongside the file. */
  fields: Record<string, string>
  /** Removes the temporary copy; safe to call twice. */
  dispose(): Promise<void>
}

/** A documented multipart body: its fields' `maxLength` are enforced while reading. */
export interface MultipartSchema {
  properties: Record<string, { type?: string; maxLength?: number }>
}

/** Any text field a multipart schema does not bound (`tenant_id`, unknown extras): 1000 characters. */
const DEFAULT_FIELD_MAX = 1000

/** A field's value, or a 400 naming the field when it is longer than the schema allows. */
function fieldValue(
  schema: MultipartSchema | undefined,
  name: string,
  part: { value: unknown; valueTruncated: boolean },
): string {
  const value = String(part.value)
  const max = schema?.properties[name]?.maxLength ?? DEFAULT_FIELD_MAX
  if (part.valueTruncated || value.length > max) {
    throw new AppError('validation_failed', `Field "${name}" must be at most ${max} characters`, [
      { path: `/${name}`, message: `must NOT have more than ${max} characters` },
    ])
  }
  return value
}

/**
 * Streams the multipart field `file` to a private temp directory (never into memory), with
 * the multipart plugin's size limit enforced while streaming, and the text fields bounded by
 * `schema` (the route's documented body).
 */
export async function receiveMultipartFile(
  request: FastifyRequest,
  schema?: MultipartSchema,
): Promise<ReceivedFile> {
  if (!request.isMultipart()) {
    throw new AppError(
      'unsupported_media_type',
      'Send the zip as multipart/form-data in field "file"',
    )
  }
  const dir = await mkdtemp(join(tmpdir(), 'courseport-upload-'))
  const dispose = () => rm(dir, { recursive: true, force: true })
  try {
    const fields: Record<string, string> = {}
    let received: { path: string; filename: string; size: number; sha256: string } | undefined
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        fields[part.fieldname] = fieldValue(schema, part.fieldname, part)
        continue
      }
      if (part.fieldname !== 'file' || received) {
        part.file.resume()
        throw new AppError(
          'validation_failed',
          `Unexpected file field "${part.fieldname}"; send one file in "file"`,
        )
      }
      const path = join(dir, 'upload.zip')
      const hash = createHash('sha256')
      await pipeline(
        part.file,
        async function* digest(source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            hash.update(chunk)
            yield chunk
          }
        },
        createWriteStream(path, { mode: 0o600 }),
      )
      if (part.file.truncated) {
        throw new AppError('payload_too_large', 'The file is larger than the upload limit')
      }
      received = {
        path,
        filename: part.filename || 'package.zip',
        size: part.file.bytesRead,
        sha256: hash.digest('hex'),
      }
    }
    assertKeyTenant(request, fields)
    if (!received) throw new AppError('validation_failed', 'No file: send the zip in field "file"')
    // An Idempotency-Key retry is recognised by what was sent, never by its multipart boundary.
    await request.claimIdempotency?.(
      JSON.stringify({
        fields: Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        file: { filename: received.filename, sha256: received.sha256 },
      }),
    )
    return { ...received, fields, dispose }
  } catch (err) {
    await dispose()
    throw asClientError(err)
  }
}

/**
 * The multipart parser's own errors (no boundary, garbage, a truncated part) are the client's
 * fault: 400. Our errors, errors that carry a status, and system errors (ENOSPC writing the temp
 * file) pass through unchanged.
 */
function asClientError(err: unknown): unknown {
  if (!(err instanceof Error) || isAppError(err) || err instanceof IdempotentReplay) return err
  if ('statusCode' in err || 'syscall' in err || 'errno' in err) return err
  return new AppError('invalid_request', `Malformed multipart body: ${err.message}`)
}
