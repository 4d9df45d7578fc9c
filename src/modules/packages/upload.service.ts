import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { BlobStore } from '../../infra/blobs/blob-store.ts'
import { lengthGuard } from '../../infra/blobs/length-guard.ts'
import { verifyUploadToken } from '../../infra/blobs/upload-token.ts'
import type { Database } from '../../infra/db/schema.ts'
import { AppError, isAppError } from '../../shared/app-error.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import { isMode, type TenantScope } from '../tenants/tenant-scope.ts'
import * as repo from './package.repository.ts'
import type { PackageDetail, PackageService } from './package.service.ts'

export interface UploadUrlRequest {
  tenant_id?: string
  uploaded_by?: string
  filename: string
  file_size: number
}

export interface ProcessRequest {
  tenant_id?: string
  uploaded_by?: string
  storage_path: string
  original_filename?: string
}

export interface UploadServiceDeps {
  db: Kysely<Database>
  blobs: BlobStore
  clock: Clock
  config: Config
  packages: PackageService
}

/** A body's `tenant_id` is optional, but when present it must be the key's (403 otherwise). */
function assertSameTenant(scope: TenantScope, tenantId: string | undefined): void {
  if (tenantId !== undefined && tenantId !== scope.tenantId) {
    throw new AppError('tenant_mismatch', "tenant_id does not match the API key's tenant")
  }
}

function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? ''
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 100)
  return cleaned || 'package.zip'
}

/**
 * The three-step presigned upload: issue a URL for one PUT, receive the bytes (fs backend: the
 * service is the PUT target; S3: the bucket is), then process the stored object exactly once.
 */
export class UploadService {
  readonly #deps: UploadServiceDeps
  constructor(deps: UploadServiceDeps) {
    this.#deps = deps
  }

  async createUploadUrl(scope: TenantScope, body: UploadUrlRequest) {
    assertSameTenant(scope, body.tenant_id)
    const { config, blobs, clock, db } = this.#deps
    if (body.file_size > config.upload.maxBytes) {
      throw new AppError(
        'payload_too_large',
        `file_size ${body.file_size} exceeds the upload limit of ${config.upload.maxBytes} bytes`,
      )
    }
    const id = newId('upl')
    const storagePath = `${scope.tenantId}/${scope.mode}/uploads/${id}/${safeFilename(body.filename)}`
    const url = await blobs.createUploadUrl(storagePath, {
      contentLength: body.file_size,
      expiresInSeconds: config.upload.urlTtlSeconds,
    })
    await repo.insertUploadIntent(db, scope, {
      id,
      tenant_id: scope.tenantId,
      mode: scope.mode,
      storage_path: storagePath,
      filename: body.filename,
      file_size: body.file_size,
      uploaded_by: body.uploaded_by ?? null,
      expires_at: url.expiresAt.toISOString(),
      consumed_at: null,
      created_at: isoNow(clock),
    })
    return {
      presigned_url: url.url,
      required_put_headers: url.headers,
      storage_path: storagePath,
      expires_at: url.expiresAt.toISOString(),
    }
  }

  /**
   * The fs backend's PUT target: the signed token names the key and the exact length. A URL whose
   * upload was already processed is refused (409), and a PUT that finishes after processing
   * started removes what it wrote, so a used URL can never leave a file nobody accounts for.
   */
  async receiveSignedUpload(
    token: string,
    body: Readable,
    declaredLength: number | undefined,
  ): Promise<{ storage_path: string; size: number }> {
    const result = verifyUploadToken(this.#deps.config.secretKey, token, this.#deps.clock.now())
    if (!result.ok) {
      body.resume()
      const why = result.reason === 'expired' ? 'has expired' : 'is not valid'
      throw new AppError('forbidden', `This upload URL ${why}; ask for a new one`)
    }
    const { key, contentLength } = result.claims
    if (
      contentLength !== undefined &&
      declaredLength !== undefined &&
      declaredLength !== contentLength
    ) {
      body.resume()
      throw new AppError(
        'invalid_request',
        `Content-Length must be ${contentLength}, the file_size you declared`,
      )
    }
    if (await this.#intentUsed(key)) {
      body.resume()
      throw new AppError('conflict', 'This upload URL was already used; ask for a new one')
    }
    // pipeline() listens for 'error' on both streams before a byte flows: a chunked body of the
    // wrong length (or a client hanging up) fails this request, never the process.
    const guarded = lengthGuard(
      contentLength === undefined
        ? { max: this.#deps.config.upload.maxBytes }
        : { expected: contentLength },
    )
    const [piped, stored] = await Promise.allSettled([
      pipeline(body, guarded),
      this.#deps.blobs.put(key, guarded, { contentLength }),
    ])
    if (piped.status === 'rejected') throw piped.reason
    if (stored.status === 'rejected') throw stored.reason
    if (await this.#intentUsed(key)) {
      await this.#deps.blobs.delete(key)
      throw new AppError('conflict', 'This upload URL was already used; ask for a new one')
    }
    return { storage_path: key, size: stored.value.size }
  }

  /** Whether the intent of an upload key is gone (cleaned up) or consumed (processed). */
  async #intentUsed(key: string): Promise<boolean> {
    const [tenantId = '', mode = ''] = key.split('/')
    if (!isMode(mode)) return true
    const intent = await repo.findUploadIntent(this.#deps.db, { tenantId, mode }, key)
    return !intent || intent.consumed_at !== null
  }

  /** Step 3: validates and stores the uploaded zip as a package (or as a new version). */
  async processUpload(
    scope: TenantScope,
    body: ProcessRequest,
    packageId?: string,
  ): Promise<PackageDetail> {
    assertSameTenant(scope, body.tenant_id)
    const { db, blobs, clock, packages } = this.#deps
    const intent = await repo.findUploadIntent(db, scope, body.storage_path)
    if (!intent) {
      throw new AppError('upload_not_found', 'No upload was issued for this storage_path')
    }
    if (!(await repo.consumeUploadIntent(db, scope, intent.id, isoNow(clock)))) {
      throw new AppError('conflict', 'This upload was already processed')
    }
    const dir = await mkdtemp(join(tmpdir(), 'courseport-process-'))
    try {
      const blob = await blobs.get(intent.storage_path)
      if (!blob) {
        throw new AppError(
          'invalid_state',
          'Nothing was uploaded yet: PUT the file to presigned_url first',
        )
      }
      const zipPath = join(dir, 'upload.zip')
      await pipeline(blob.body, createWriteStream(zipPath, { mode: 0o600 }))
      const input = {
        zipPath,
        filename: body.original_filename ?? intent.filename,
        uploadedBy: body.uploaded_by ?? intent.uploaded_by,
      }
      const detail = packageId
        ? await packages.addVersionFromZip(scope, packageId, input)
        : await packages.createFromZip(scope, input)
      await blobs.delete(intent.storage_path)
      return detail
    } catch (err) {
      const refused = isAppError(err) && err.status < 500 && err.code !== 'invalid_state'
      // A refused file stays refused: drop it. Anything else may succeed on a retry.
      if (refused) await blobs.delete(intent.storage_path)
      else await repo.releaseUploadIntent(db, scope, intent.id)
      throw err
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }
}
