import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { Kysely } from 'kysely'
import type { BlobStore } from '../../infra/blobs/blob-store.ts'
import { cursorPosition, pageOf } from '../../infra/db/keyset.ts'
import type { Database } from '../../infra/db/schema.ts'
import type { ConversionStatus, ConversionsTable } from '../../infra/db/tables/conversions.ts'
import type { Metrics } from '../../infra/metrics/index.ts'
import type { SlideRenderer } from '../../infra/office/index.ts'
import type { Queue } from '../../infra/queue/index.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import type { PackageService } from '../packages/package.service.ts'
import type { ScormTarget } from '../publish/course-generator/index.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { type ConversionView, toConversionView } from './conversion.mapper.ts'
import * as repo from './conversion.repository.ts'
import { ConversionRunner } from './conversion.runner.ts'
import { checkAllowance, takeAllowance } from './conversion-allowance.ts'
import { probePresentation } from './ooxml/index.ts'

/** Queue task that runs a conversion (src/jobs/conversion.job.ts). */
export const CONVERSION_TASK = 'conversion.run'
/** A crash-looping deck is given up after this many attempts. */
export const CONVERSION_MAX_ATTEMPTS = 3

export interface ConversionServiceDeps {
  db: Kysely<Database>
  blobs: BlobStore
  clock: Clock
  queue: Queue
  packages: PackageService
  renderer: SlideRenderer
  /** Where jobs get their scratch directories. */
  scratchDir: string
  /** Records conversion durations. Default: nothing recorded. */
  metrics?: Metrics
}

export interface CreateConversionInput {
  /** The uploaded file (a local temp copy; the caller removes it). */
  filePath: string
  filename: string
  title?: string
  scormVersion?: ScormTarget
}

const stem = (filename: string) =>
  filename
    .replace(/^.*[\\/]/, '')
    .replace(/\.[^.]*$/, '')
    .trim()

/**
 * Conversion jobs (.pptx → hosted SCORM package). `create` reads the presentation's structure
 * while the request waits (a file that is not a usable presentation is refused with 422, before
 * any job or allowance is spent), stores the upload and queues the job; the queue's worker calls
 * `run`. Reads reconcile jobs the queue gave up on, so none stays `processing` for ever.
 */
export class ConversionService {
  readonly #deps: ConversionServiceDeps
  readonly #runner: ConversionRunner
  constructor(deps: ConversionServiceDeps) {
    this.#deps = deps
    this.#runner = new ConversionRunner(deps)
  }

  // Over 60 lines only because the inserted row names every column; the steps (probe, allowance,
  // store the upload, one transaction for allowance + queue + row + audit) read in order.
  async create(scope: TenantScope, input: CreateConversionInput): Promise<ConversionView> {
    const { db, blobs, clock, queue } = this.#deps
    const probe = await probePresentation(input.filePath)
    if (probe.visibleSlideCount === 0) {
      throw new AppError(
        'unprocessable',
        probe.slideCount === 0
          ? 'The presentation has no slides, so there is nothing to convert.'
          : 'Every slide of the presentation is hidden; show at least one slide in PowerPoint.',
        { reason: probe.slideCount === 0 ? 'no_slides' : 'no_visible_slides' },
      )
    }
    await checkAllowance(db, scope, clock.now())
    const id = newId('cnv')
    const filename = input.filename.slice(0, 255)
    const title = (
      input.title?.trim() ||
      probe.title?.trim() ||
      stem(filename) ||
      'Untitled presentation'
    ).slice(0, 300)
    const { size } = await stat(input.filePath)
    const blobKey = `${scope.tenantId}/${scope.mode}/conversions/${id}/source.${probe.format}`
    await blobs.put(blobKey, createReadStream(input.filePath), { contentLength: size })
    try {
      await db.transaction().execute(async (trx) => {
        const now = clock.now()
        const period = await takeAllowance(trx, scope, now)
        const queueJobId = await queue.enqueue(trx, {
          task: CONVERSION_TASK,
          payload: { conversionId: id, tenantId: scope.tenantId, mode: scope.mode },
          jobKey: `conversion:${id}`,
          maxAttempts: CONVERSION_MAX_ATTEMPTS,
        })
        const at = now.toISOString()
        await repo.insertConversion(trx, scope, {
          id,
          tenant_id: scope.tenantId,
          mode: scope.mode,
          status: 'queued',
          title,
          source_filename: filename,
          source_format: probe.format,
          source_bytes: size,
          source_blob_key: blobKey,
          target_scorm_version: input.scormVersion ?? '2004',
          slide_count: probe.visibleSlideCount,
          hidden_slide_count: probe.hiddenSlideCount,
          progress_done: 0,
          package_id: null,
          error: null,
          warnings: JSON.stringify(probe.warnings),
          rendering: null,
          queue_job_id: queueJobId,
          allowance_period: period,
          created_at: at,
          updated_at: at,
          started_at: null,
          finished_at: null,
        })
        await recordAuditEvent(trx, scope, {
          type: 'conversion.created',
          entityType: 'conversion',
          entityId: id,
          data: { job_id: id, title, slide_count: probe.visibleSlideCount },
          occurredAt: at,
        })
      })
    } catch (err) {
      await blobs.delete(blobKey).catch(() => {})
      throw err
    }
    return this.get(scope, id)
  }

  async get(scope: TenantScope, id: string): Promise<ConversionView> {
    const row = await repo.findConversion(this.#deps.db, scope, id)
    if (!row) throw new AppError('not_found', `No conversion job ${id}`)
    return toConversionView(await this.#reconcile(scope, row))
  }

  async list(
    scope: TenantScope,
    query: { limit?: number; cursor?: string; status?: ConversionStatus },
  ): Promise<{ jobs: ConversionView[]; total: number; next_cursor: string | null }> {
    const limit = query.limit ?? 50
    const after = cursorPosition(query.cursor || undefined)
    const { db } = this.#deps
    const rows = await repo.listConversions(db, scope, { limit, status: query.status, after })
    const page = pageOf(rows, limit)
    const jobs: ConversionView[] = []
    for (const row of page.data) jobs.push(toConversionView(await this.#reconcile(scope, row)))
    return {
      jobs,
      total: await repo.countConversions(db, scope, query.status),
      next_cursor: page.next_cursor,
    }
  }

  /** The queue task body; see ConversionRunner. */
  run(payload: unknown, job: { signal: AbortSignal; attempt: number; maxAttempts: number }) {
    return this.#runner.run(payload, job)
  }

  /**
   * An unfinished job whose queue job is gone or failed (its worker crashed on the last attempt,
   * or the lease ran out) will never finish: record it as failed instead of leaving it
   * `processing`. A failed queue job never runs again unless retried by hand.
   */
  async #reconcile(scope: TenantScope, row: ConversionsTable): Promise<ConversionsTable> {
    if (row.status !== 'queued' && row.status !== 'processing') return row
    const job = await this.#deps.queue.jobs.get(row.queue_job_id)
    if (job && job.status !== 'failed' && job.status !== 'completed') return row
    await this.#runner.fail(
      scope,
      row,
      'The conversion was interrupted several times (the worker stopped or ran out of memory) and was given up. Upload the file again; if it keeps failing, split the presentation.',
    )
    return (await repo.findConversion(this.#deps.db, scope, row.id)) ?? row
  }
}
