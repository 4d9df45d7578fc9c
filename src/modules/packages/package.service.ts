import { stat } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { BlobStore } from '../../infra/blobs/blob-store.ts'
import { cursorPosition, pageOf } from '../../infra/db/keyset.ts'
import type { Database, PackagesTable } from '../../infra/db/schema.ts'
import type { Metrics } from '../../infra/metrics/index.ts'
import { AppError } from '../../shared/app-error.ts'
import { type Clock, isoNow } from '../../shared/clock.ts'
import { newId } from '../../shared/ids.ts'
import { recordAuditEvent } from '../events/audit-event.repository.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import {
  type PackageView,
  type RuntimeOptionsView,
  type RuntimeWarningView,
  toPackageView,
  toRuntimeOptions,
  toRuntimeWarningView,
  toVersionView,
  type VersionView,
} from './package.mapper.ts'
import * as repo from './package.repository.ts'
import { type IngestedPackage, ingestZip } from './package-ingest.ts'

export interface ZipInput {
  /** A local file holding the uploaded zip; the caller removes it afterwards. */
  zipPath: string
  filename: string
  uploadedBy: string | null
}

export interface PackageDetail {
  package: PackageView
  versions: VersionView[]
  manifest: Record<string, unknown> | null
  warnings: string[]
  /** Values its content wrote that the runtime refused (most recent first, at most 50). */
  runtime_warnings: RuntimeWarningView[]
}

export interface PackageServiceDeps {
  db: Kysely<Database>
  blobs: BlobStore
  clock: Clock
  config: Config
  /** Records ingest durations. Default: nothing recorded. */
  metrics?: Metrics
}

/** Where a package's files live (DESIGN §6); the original zip sits beside the version folder. */
export function packageBlobPrefix(scope: TenantScope, packageId: string): string {
  return `${scope.tenantId}/${scope.mode}/packages/${packageId}`
}

export class PackageService {
  readonly #deps: PackageServiceDeps
  constructor(deps: PackageServiceDeps) {
    this.#deps = deps
  }

  async list(
    scope: TenantScope,
    query: { limit?: number; cursor?: string; status?: 'active' | 'archived' },
  ): Promise<{ packages: PackageView[]; next_cursor: string | null }> {
    const limit = query.limit ?? 50
    const after = cursorPosition(query.cursor || undefined)
    const rows = await repo.listPackages(this.#deps.db, scope, {
      limit,
      status: query.status,
      after,
    })
    const page = pageOf(rows, limit)
    return { packages: page.data.map(toPackageView), next_cursor: page.next_cursor }
  }

  async get(scope: TenantScope, packageId: string): Promise<PackageDetail> {
    const row = await this.#requirePackage(scope, packageId)
    const versions = await repo.listVersions(this.#deps.db, scope, packageId)
    const active = versions.find((v) => v.id === row.active_version_id)
    const manifest = active ? (JSON.parse(active.manifest) as Record<string, unknown>) : null
    const warnings = Array.isArray(manifest?.warnings) ? (manifest.warnings as string[]) : []
    const runtimeWarnings = await repo.listRuntimeWarnings(this.#deps.db, scope, packageId)
    return {
      package: toPackageView(row),
      versions: versions.map((v) => toVersionView(v, row.active_version_id)),
      manifest,
      warnings,
      runtime_warnings: runtimeWarnings.map(toRuntimeWarningView),
    }
  }

  /**
   * Changes a package's runtime options (only the fields given). Running launches see the change
   * within 30 s (the runtime's cache).
   */
  async updateRuntimeOptions(
    scope: TenantScope,
    packageId: string,
    changes: Partial<RuntimeOptionsView>,
  ): Promise<PackageDetail> {
    await this.#deps.db.transaction().execute(async (trx) => {
      const pkg = await repo.findPackage(trx, scope, packageId)
      if (!pkg) throw new AppError('package_not_found', `No package ${packageId}`)
      const options = { ...toRuntimeOptions(pkg.runtime_options), ...changes }
      const now = isoNow(this.#deps.clock)
      await repo.updatePackage(trx, scope, packageId, {
        runtime_options: JSON.stringify(options),
        updated_at: now,
      })
      await recordAuditEvent(trx, scope, {
        type: 'package.runtime_options_changed',
        entityType: 'package',
        entityId: packageId,
        data: { package_id: packageId, runtime_options: options },
        occurredAt: now,
      })
    })
    return this.get(scope, packageId)
  }

  /** Validates, stores and registers a new package whose first version is active at once. */
  async createFromZip(scope: TenantScope, input: ZipInput): Promise<PackageDetail> {
    const packageId = newId('pkg')
    const versionId = newId('pv')
    const ingested = await this.#ingest(scope, packageId, versionId, input)
    const now = isoNow(this.#deps.clock)
    await this.#commitOrDiscard(ingested, async (trx) => {
      await repo.insertPackage(trx, scope, {
        id: packageId,
        tenant_id: scope.tenantId,
        mode: scope.mode,
        title: ingested.title,
        description: ingested.description,
        status: 'active',
        content_type: ingested.contentType,
        scorm_version: ingested.scormVersion,
        active_version_id: versionId,
        latest_version_number: 1,
        created_at: now,
        updated_at: now,
        archived_at: null,
        runtime_options: '{}',
      })
      await repo.insertVersion(
        trx,
        scope,
        ingested.versionRow(scope, packageId, versionId, 1, now, now),
      )
      await recordAuditEvent(trx, scope, {
        type: 'package.created',
        entityType: 'package',
        entityId: packageId,
        data: { package_id: packageId, version_id: versionId, title: ingested.title },
        occurredAt: now,
      })
    })
    return this.get(scope, packageId)
  }

  /** Stores a new, inactive version of an existing package; activation is a separate step. */
  async addVersionFromZip(
    scope: TenantScope,
    packageId: string,
    input: ZipInput,
  ): Promise<PackageDetail> {
    const existing = await this.#requirePackage(scope, packageId)
    if (existing.status === 'archived') {
      throw new AppError(
        'invalid_state',
        'The package is archived; restore it before adding versions',
      )
    }
    const versionId = newId('pv')
    const ingested = await this.#ingest(scope, packageId, versionId, input)
    if (ingested.contentType !== existing.content_type) {
      await ingested.discard()
      throw new AppError(
        'invalid_package',
        `This upload is ${ingested.contentType} content but the package holds ${existing.content_type} content`,
      )
    }
    const now = isoNow(this.#deps.clock)
    await this.#commitOrDiscard(ingested, async (trx) => {
      const current = await repo.findPackage(trx, scope, packageId)
      if (!current) throw new AppError('package_not_found', `No package ${packageId}`)
      const number = Number(current.latest_version_number) + 1
      await repo.insertVersion(
        trx,
        scope,
        ingested.versionRow(scope, packageId, versionId, number, now, null),
      )
      await repo.updatePackage(trx, scope, packageId, {
        latest_version_number: number,
        updated_at: now,
      })
      await recordAuditEvent(trx, scope, {
        type: 'package.version_created',
        entityType: 'package',
        entityId: packageId,
        data: { package_id: packageId, version_id: versionId, version_number: number },
        occurredAt: now,
      })
    })
    return this.get(scope, packageId)
  }

  async activateVersion(
    scope: TenantScope,
    packageId: string,
    versionId: string,
  ): Promise<PackageDetail> {
    await this.#deps.db.transaction().execute(async (trx) => {
      const pkg = await repo.findPackage(trx, scope, packageId)
      if (!pkg) throw new AppError('package_not_found', `No package ${packageId}`)
      const version = await repo.findVersion(trx, scope, packageId, versionId)
      if (!version)
        throw new AppError('version_not_found', `Package ${packageId} has no version ${versionId}`)
      if (pkg.status === 'archived') {
        throw new AppError(
          'invalid_state',
          'The package is archived; restore it before activating a version',
        )
      }
      if (pkg.active_version_id === versionId) return
      const now = isoNow(this.#deps.clock)
      await repo.setVersionActivated(trx, scope, versionId, now)
      await repo.updatePackage(trx, scope, packageId, {
        active_version_id: versionId,
        title: version.title,
        scorm_version: version.scorm_version,
        updated_at: now,
      })
      await recordAuditEvent(trx, scope, {
        type: 'package.version_activated',
        entityType: 'package',
        entityId: packageId,
        data: {
          package_id: packageId,
          version_id: versionId,
          version_number: Number(version.version_number),
          previous_version_id: pkg.active_version_id,
        },
        occurredAt: now,
      })
    })
    return this.get(scope, packageId)
  }

  archive(scope: TenantScope, packageId: string): Promise<PackageDetail> {
    return this.#setStatus(scope, packageId, 'archived')
  }

  restore(scope: TenantScope, packageId: string): Promise<PackageDetail> {
    return this.#setStatus(scope, packageId, 'active')
  }

  /** The original zip of the active version, or of `versionId`. */
  async openOriginalZip(
    scope: TenantScope,
    packageId: string,
    versionId?: string,
  ): Promise<{ body: Readable; size: number; filename: string }> {
    const pkg = await this.#requirePackage(scope, packageId)
    const id = versionId ?? pkg.active_version_id
    const version = id ? await repo.findVersion(this.#deps.db, scope, packageId, id) : undefined
    if (!version)
      throw new AppError('version_not_found', `Package ${packageId} has no version ${id}`)
    const blob = await this.#deps.blobs.get(version.zip_blob_key)
    if (!blob) throw new AppError('not_found', 'The original zip of this version is missing')
    return { body: blob.body, size: blob.size, filename: version.original_filename }
  }

  /** Reads a local zip through validation into blob storage; see `ingestZip`. */
  async #ingest(scope: TenantScope, packageId: string, versionId: string, input: ZipInput) {
    const { size } = await stat(input.zipPath)
    if (size > this.#deps.config.upload.maxBytes) {
      throw new AppError('payload_too_large', 'The file is larger than the upload limit')
    }
    return ingestZip({
      blobs: this.#deps.blobs,
      limits: this.#deps.config.unpack,
      zipPath: input.zipPath,
      originalFilename: input.filename,
      uploadedBy: input.uploadedBy,
      prefix: `${packageBlobPrefix(scope, packageId)}/${versionId}`,
      zipKey: `${packageBlobPrefix(scope, packageId)}/${versionId}.zip`,
      metrics: this.#deps.metrics,
    })
  }

  /** Runs the registration transaction; if it fails, the stored files are removed again. */
  async #commitOrDiscard(
    ingested: IngestedPackage,
    register: (
      trx: Parameters<Parameters<ReturnType<Kysely<Database>['transaction']>['execute']>[0]>[0],
    ) => Promise<void>,
  ): Promise<void> {
    try {
      await this.#deps.db.transaction().execute(register)
    } catch (err) {
      await ingested.discard()
      throw err
    }
  }

  async #setStatus(scope: TenantScope, packageId: string, status: 'active' | 'archived') {
    await this.#deps.db.transaction().execute(async (trx) => {
      const pkg = await repo.findPackage(trx, scope, packageId)
      if (!pkg) throw new AppError('package_not_found', `No package ${packageId}`)
      if (pkg.status === status) {
        throw new AppError(
          'invalid_state',
          `The package is already ${status === 'active' ? 'active' : 'archived'}`,
        )
      }
      const now = isoNow(this.#deps.clock)
      await repo.updatePackage(trx, scope, packageId, {
        status,
        archived_at: status === 'archived' ? now : null,
        updated_at: now,
      })
      await recordAuditEvent(trx, scope, {
        type: status === 'archived' ? 'package.archived' : 'package.restored',
        entityType: 'package',
        entityId: packageId,
        data: { package_id: packageId, title: pkg.title },
        occurredAt: now,
      })
    })
    return this.get(scope, packageId)
  }

  async #requirePackage(scope: TenantScope, packageId: string): Promise<PackagesTable> {
    const row = await repo.findPackage(this.#deps.db, scope, packageId)
    if (!row) throw new AppError('package_not_found', `No package ${packageId}`)
    return row
  }
}
