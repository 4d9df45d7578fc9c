import type { BlobStore } from '../../infra/blobs/blob-store.ts'
import type { PackageVersionsTable } from '../../infra/db/schema.ts'
import { type Metrics, noopMetrics, timed } from '../../infra/metrics/index.ts'
import type { ManifestSummary } from '../scorm/manifest/index.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { ParallelPut } from './parallel-put.ts'
import {
  inspectPackage,
  storePackageFiles,
  type UnpackLimits,
  withIngestSlot,
} from './unpack/index.ts'

export interface IngestOptions {
  blobs: BlobStore
  /** The configured limits (config.unpack). */
  limits: { maxEntries: number; maxTotalBytes: number; maxRatio: number }
  zipPath: string
  originalFilename: string
  uploadedBy: string | null
  /** Folder of the version's files, without a trailing slash. */
  prefix: string
  zipKey: string
  /** Records the ingest's duration and outcome. Default: nothing recorded. */
  metrics?: Metrics
}

/** What the manifest says, without the file list (it can be thousands of names). */
export type StoredManifest = Omit<ManifestSummary, 'files'>

export interface IngestedPackage {
  contentType: ManifestSummary['contentType']
  scormVersion: ManifestSummary['scormVersion']
  title: string
  description: string | null
  manifest: StoredManifest
  fileCount: number
  totalBytes: number
  versionRow(
    scope: TenantScope,
    packageId: string,
    versionId: string,
    versionNumber: number,
    createdAt: string,
    activatedAt: string | null,
  ): PackageVersionsTable
  /** Removes everything this ingest stored; for when registering the version fails. */
  discard(): Promise<void>
}

function editionLabel(summary: ManifestSummary): string | null {
  if (summary.scormVersion === '1.2') return '1.2'
  if (summary.scormVersion === '2004') {
    return summary.edition ? `2004 ${summary.edition} Edition` : '2004'
  }
  return null
}

/**
 * Validates the zip completely (manifest, launch files, limits on the declared sizes), then
 * stores its files one by one and the original zip. Bytes are checked again while streaming, so
 * a zip that lies in its headers fails here; any failure removes what was stored, so a refused
 * upload leaves nothing behind.
 */
export function ingestZip(options: IngestOptions): Promise<IngestedPackage> {
  // At most a few ingests at once (unpack/ingest-slots.ts: 2, then wait ≤ 30 s, then 503).
  const metrics = options.metrics ?? noopMetrics
  return withIngestSlot(() =>
    timed(
      (outcome, s) => metrics.packageIngest(outcome, s),
      () => ingestNow(options),
    ),
  )
}

/** The configured limits as the unpacker's: one ratio bounds each entry and the whole zip. */
function unpackLimits(limits: IngestOptions['limits']): Partial<UnpackLimits> {
  return {
    maxEntries: limits.maxEntries,
    maxTotalBytes: limits.maxTotalBytes,
    maxEntryRatio: limits.maxRatio,
    maxTotalRatio: limits.maxRatio,
  }
}

async function ingestNow(options: IngestOptions): Promise<IngestedPackage> {
  const { blobs, prefix, zipKey } = options
  const limits = unpackLimits(options.limits)
  const fallbackTitle = options.originalFilename.replace(/\.zip$/i, '') || 'Untitled package'
  const summary = await inspectPackage(options.zipPath, limits, { fallbackTitle })
  const discard = async () => {
    await blobs.deletePrefix(`${prefix}/`)
    await blobs.delete(zipKey)
  }
  // The original zip is copied while the files are extracted: neither depends on the other.
  // Its outcome is caught here, where it starts: a rejection nobody listens to yet (an
  // unreachable store fails it within milliseconds) would end the process.
  const zipCopy: Promise<{ failed: unknown } | null> = blobs
    .putFile(zipKey, options.zipPath, { contentType: 'application/zip', deferSync: true })
    .then(
      () => null,
      (failed: unknown) => ({ failed }),
    )
  const writer = new ParallelPut(blobs)
  try {
    await storePackageFiles(options.zipPath, summary, limits, (path, stream, size) =>
      writer.put(`${prefix}/${path}`, stream, size),
    )
    await writer.finish()
    const copy = await zipCopy
    if (copy) throw copy.failed
    // One flush for the whole package, before the version can be registered.
    await blobs.flush()
  } catch (err) {
    // Every write must have settled before the clean-up, or one could land after it.
    await Promise.allSettled([writer.finish(), zipCopy])
    await discard().catch(() => {}) // the store may be what failed; the error to report is err
    throw err
  }
  const { files, ...manifest } = summary
  const edition = editionLabel(summary)
  return {
    contentType: summary.contentType,
    scormVersion: summary.scormVersion,
    title: summary.title,
    description: summary.description,
    manifest,
    fileCount: files.length,
    totalBytes: summary.totalBytes,
    discard,
    versionRow: (scope, packageId, versionId, versionNumber, createdAt, activatedAt) => ({
      id: versionId,
      package_id: packageId,
      tenant_id: scope.tenantId,
      mode: scope.mode,
      version_number: versionNumber,
      content_type: summary.contentType,
      scorm_version: summary.scormVersion,
      edition,
      title: summary.title,
      manifest: JSON.stringify(manifest),
      file_count: files.length,
      total_bytes: summary.totalBytes,
      blob_prefix: prefix,
      zip_blob_key: zipKey,
      original_filename: options.originalFilename,
      uploaded_by: options.uploadedBy,
      created_at: createdAt,
      activated_at: activatedAt,
    }),
  }
}
