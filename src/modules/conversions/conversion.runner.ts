import { createWriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { ConversionsTable } from '../../infra/db/tables/conversions.ts'
import { noopMetrics, timed } from '../../infra/metrics/index.ts'
import { AppError, type ErrorCode, isAppError } from '../../shared/app-error.ts'
import { isoNow } from '../../shared/clock.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import { zipFileName } from '../publish/zip-file-name.ts'
import { isMode, type TenantScope } from '../tenants/tenant-scope.ts'
import { convertPresentation } from './conversion.pipeline.ts'
import * as repo from './conversion.repository.ts'
import type { ConversionServiceDeps } from './conversion.service.ts'

/** Errors about the file itself: trying again cannot help. */
const PERMANENT: ReadonlySet<ErrorCode> = new Set([
  'unprocessable',
  'invalid_package',
  'unsupported_content',
  'validation_failed',
  'payload_too_large',
])

/** Progress is written at most this often (and always for the last slide). */
const PROGRESS_INTERVAL_MS = 250

interface Payload {
  conversionId: string
  tenantId: string
  mode: 'live' | 'test'
}

function parsePayload(payload: unknown): Payload {
  const p = payload as Partial<Payload> | null
  if (
    !p ||
    typeof p.conversionId !== 'string' ||
    typeof p.tenantId !== 'string' ||
    typeof p.mode !== 'string' ||
    !isMode(p.mode)
  ) {
    throw new Error(`conversion job payload is malformed: ${JSON.stringify(payload)}`)
  }
  return { conversionId: p.conversionId, tenantId: p.tenantId, mode: p.mode }
}

/** `uploaded_by` of the package a conversion registers: finds it again after a crash. */
export const uploaderOf = (conversionId: string) => `conversion:${conversionId}`

/**
 * Runs one conversion job: download the upload, convert it (conversion.pipeline.ts), register the
 * course through the same validation as uploads, record the outcome. Restart-safe: each attempt
 * starts from the stored upload in a fresh scratch directory, and a package registered by an
 * attempt that crashed before recording it is picked up instead of being made twice.
 */
export class ConversionRunner {
  readonly #deps: ConversionServiceDeps
  constructor(deps: ConversionServiceDeps) {
    this.#deps = deps
  }

  async run(
    payload: unknown,
    job: { signal: AbortSignal; attempt: number; maxAttempts: number },
  ): Promise<void> {
    const { conversionId, tenantId, mode } = parsePayload(payload)
    const scope: TenantScope = { tenantId, mode }
    const { db, clock } = this.#deps
    const row = await repo.findConversion(db, scope, conversionId)
    if (!row || row.status === 'completed' || row.status === 'failed') return
    const startedAt = row.started_at ?? isoNow(clock)
    await repo.updateUnfinished(db, scope, row.id, {
      status: 'processing',
      started_at: startedAt,
      progress_done: 0,
      updated_at: isoNow(clock),
    })
    const registered = await repo.findPackageUploadedBy(db, scope, uploaderOf(row.id))
    if (registered) {
      await this.#complete(scope, row, registered, {})
      return
    }
    const workDir = this.#workDir(row.id)
    await rm(workDir, { recursive: true, force: true }) // what a crashed attempt left
    await mkdir(workDir, { recursive: true, mode: 0o700 })
    try {
      const metrics = this.#deps.metrics ?? noopMetrics
      await timed(
        (outcome, s) => metrics.conversion(outcome, s),
        () => this.#convert(scope, row, workDir, job.signal),
      )
    } catch (err) {
      if (isAppError(err) && PERMANENT.has(err.code)) {
        await this.fail(scope, row, err.message)
        return
      }
      if (job.signal.aborted) throw err // the queue hands the job to a worker again
      if (job.attempt >= job.maxAttempts) {
        await this.fail(
          scope,
          row,
          `The conversion failed because of an internal error (job ${row.id}). Try again later.`,
        )
      } else {
        await repo.updateUnfinished(db, scope, row.id, {
          status: 'queued',
          progress_done: 0,
          updated_at: isoNow(clock),
        })
      }
      throw err
    } finally {
      await removeScratch(workDir)
    }
  }

  async #convert(scope: TenantScope, row: ConversionsTable, workDir: string, signal: AbortSignal) {
    const { db, blobs, clock, packages, renderer } = this.#deps
    const blob = await blobs.get(row.source_blob_key)
    if (!blob) {
      throw new AppError('unprocessable', 'The uploaded file is no longer stored; upload it again.')
    }
    const sourcePath = join(workDir, `source.${row.source_format}`)
    await pipeline(blob.body, createWriteStream(sourcePath, { mode: 0o600 }))

    let lastWrite = 0
    let writes: Promise<unknown> = Promise.resolve()
    const total = Number(row.slide_count)
    const onProgress = (done: number) => {
      const now = Date.now()
      if (done < total && now - lastWrite < PROGRESS_INTERVAL_MS) return
      lastWrite = now
      writes = writes
        .then(() =>
          repo.updateUnfinished(db, scope, row.id, {
            progress_done: done,
            updated_at: isoNow(clock),
          }),
        )
        .catch(() => {}) // progress is best effort; the outcome is written below
    }
    const result = await convertPresentation({
      sourcePath,
      workDir,
      title: row.title,
      scormVersion: row.target_scorm_version,
      identifier: row.id,
      renderer,
      signal,
      onProgress,
    })
    await writes
    const detail = await packages.createFromZip(scope, {
      zipPath: result.zipPath,
      filename: zipFileName(row.title),
      uploadedBy: uploaderOf(row.id),
    })
    await this.#complete(scope, row, detail.package.id, {
      slide_count: result.slideCount,
      hidden_slide_count: result.hiddenSlideCount,
      warnings: JSON.stringify(result.warnings),
      rendering: result.rendering,
    })
  }

  async #complete(
    scope: TenantScope,
    row: ConversionsTable,
    packageId: string,
    values: Partial<ConversionsTable>,
  ) {
    const { db, blobs, clock } = this.#deps
    const at = isoNow(clock)
    await db.transaction().execute(async (trx) => {
      const done = await repo.updateUnfinished(trx, scope, row.id, {
        ...values,
        status: 'completed',
        package_id: packageId,
        progress_done: Number(values.slide_count ?? row.slide_count),
        updated_at: at,
        finished_at: at,
      })
      if (!done) return
      await recordAuditEvent(trx, scope, {
        type: 'conversion.completed',
        entityType: 'conversion',
        entityId: row.id,
        data: { job_id: row.id, package_id: packageId },
        occurredAt: at,
      })
    })
    await blobs.delete(row.source_blob_key).catch(() => {})
  }

  /** Scratch directory of a job: the same path for every attempt, so each cleans the last. */
  #workDir(conversionId: string): string {
    return join(this.#deps.scratchDir, `courseport-${conversionId}`)
  }

  /** Records a job as failed with a user-facing `error`, gives its allowance back. */
  async fail(scope: TenantScope, row: ConversionsTable, error: string): Promise<void> {
    const { db, blobs, clock } = this.#deps
    const at = isoNow(clock)
    await db.transaction().execute(async (trx) => {
      const done = await repo.updateUnfinished(trx, scope, row.id, {
        status: 'failed',
        error,
        updated_at: at,
        finished_at: at,
      })
      if (!done) return
      if (row.allowance_period) await repo.refundAllowance(trx, scope, row.allowance_period)
      await recordAuditEvent(trx, scope, {
        type: 'conversion.failed',
        entityType: 'conversion',
        entityId: row.id,
        severity: 'warn',
        data: { job_id: row.id, error },
        occurredAt: at,
      })
    })
    await blobs.delete(row.source_blob_key).catch(() => {})
    // A crashed last attempt on this machine left its files behind.
    await removeScratch(this.#workDir(row.id))
  }
}

/**
 * Best effort: by now the job's outcome is recorded, and neither it nor a reader of the conversion
 * may fail because scratch files could not go. A directory still being written to (ENOTEMPTY)
 * gets a few retries. (A crashed attempt's LibreOffice has ended by the time its lease runs out:
 * the lease outlives the render timeout.)
 */
async function removeScratch(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 }).catch(() => {})
}
