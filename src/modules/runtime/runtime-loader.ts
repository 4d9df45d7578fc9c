import type { Executor } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Clock } from '../../shared/clock.ts'
import { findRuntimeOptions, findVersion } from '../packages/package.repository.ts'
import type { StoredManifest } from '../packages/package-ingest.ts'
import type { DataModelOptions } from '../scorm/data-model/index.ts'
import { courseItems, trackedItems } from '../sessions/course-items.ts'
import { findSessionForRuntime } from '../sessions/session.cross-tenant.repository.ts'
import { scopeOfSession } from '../sessions/session.mapper.ts'
import { findTenant } from '../tenants/tenant.cross-tenant.repository.ts'
import { sequencingOf } from './attempt-sequencing.ts'
import type { Loaded, VersionInfo } from './runtime.types.ts'

/** Versions never change once stored, so their parsed manifests are kept (bounded). */
const VERSION_CACHE_SIZE = 200
/** Tenant settings and package runtime options are re-read at most this often (30 s). */
const SETTINGS_TTL_MS = 30_000

/**
 * Reads a session for a runtime call — found by the id its signed token names, so the session
 * row decides the tenant scope of everything read after it — with its package version (cached)
 * and its data-model options (cached for SETTINGS_TTL_MS by the injected clock).
 */
export class RuntimeLoader {
  readonly #clock: Clock
  readonly #versions = new Map<string, VersionInfo>()
  readonly #settings = new Map<string, { options: DataModelOptions; until: number }>()
  readonly #packageOptions = new Map<string, { options: DataModelOptions; until: number }>()

  constructor(clock: Clock) {
    this.#clock = clock
  }

  async load(db: Executor, sessionId: string): Promise<Loaded> {
    const session = await findSessionForRuntime(db, sessionId)
    if (!session) throw new AppError('session_not_found', `No session ${sessionId}`)
    const info = await this.#versionInfo(db, session)
    return { session, ...info, options: await this.options(db, session) }
  }

  async #versionInfo(db: Executor, session: SessionsTable): Promise<VersionInfo> {
    const versionId = session.version_id
    const cached = this.#versions.get(versionId)
    if (cached) return cached
    const row = await findVersion(db, scopeOfSession(session), session.package_id, versionId)
    if (!row) throw new AppError('session_not_found', `No package version for ${session.id}`)
    const manifest = JSON.parse(row.manifest) as StoredManifest
    const items = courseItems(manifest)
    const version = row.scorm_version ?? '2004'
    const info: VersionInfo = {
      version,
      items,
      trackedCount: trackedItems(items).length,
      manifest,
      blobPrefix: row.blob_prefix,
      sequencing: sequencingOf(versionId, version, manifest),
    }
    if (this.#versions.size >= VERSION_CACHE_SIZE) this.#versions.clear()
    this.#versions.set(versionId, info)
    return info
  }

  /**
   * A session's data-model options: its tenant's (a tenant may allow 64 000 characters of 1.2
   * suspend data) and its package's runtime options (`lenient_identifiers`). Both are cached for
   * SETTINGS_TTL_MS, so a change reaches running launches within 30 s.
   */
  async options(db: Executor, session: SessionsTable): Promise<DataModelOptions> {
    const now = this.#clock.now().getTime()
    let tenant = this.#settings.get(session.tenant_id)
    if (!tenant || tenant.until <= now) {
      const row = await findTenant(db, session.tenant_id)
      const settings = JSON.parse(row?.settings ?? '{}') as { suspendDataLimit12?: number }
      const options = settings.suspendDataLimit12
        ? { suspendDataLimit12: settings.suspendDataLimit12 }
        : {}
      tenant = { options, until: now + SETTINGS_TTL_MS }
      this.#settings.set(session.tenant_id, tenant)
    }
    let pkg = this.#packageOptions.get(session.package_id)
    if (!pkg || pkg.until <= now) {
      const json = await findRuntimeOptions(db, scopeOfSession(session), session.package_id)
      const stored = JSON.parse(json) as { lenient_identifiers?: boolean }
      const options = stored.lenient_identifiers ? { lenientIdentifiers: true } : {}
      if (this.#packageOptions.size >= VERSION_CACHE_SIZE * 10) this.#packageOptions.clear()
      pkg = { options, until: now + SETTINGS_TTL_MS }
      this.#packageOptions.set(session.package_id, pkg)
    }
    return { ...tenant.options, ...pkg.options }
  }
}
