import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { FastifyRequest } from 'fastify'
import { AppError } from '../shared/app-error.ts'

export interface ReceivedFile {
  path: string
  filename: string
  size: number
  /** Text fields sent alongside the file. */
  fields: Record<string, string>
  /** Removes the temporary copy; safe to call twice. */
  dispose(): Promise<void>
}

/**
 * Streams the multipart field `file` to a private temp directory (never into memory), with
 * the multipart plugin's size limit enforced while streaming.
 */
export async function receiveMultipartFile(request: FastifyRequest): Promise<ReceivedFile> {
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
    let received: { path: string; filename: string; size: number } | undefined
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value)
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
      await pipeline(part.file, createWriteStream(path, { mode: 0o600 }))
      if (part.file.truncated) {
        throw new AppError('payload_too_large', 'The file is larger than the upload limit')
      }
      received = { path, filename: part.filename || 'package.zip', size: part.file.bytesRead }
    }
    if (!received) throw new AppError('validation_failed', 'No file: send the zip in field "file"')
    return { ...received, fields, dispose }
  } catch (err) {
    await dispose()
    throw err
  }
}
