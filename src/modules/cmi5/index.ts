import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import type { Clock } from '../../shared/clock.ts'
import type { Cmi5Structure, ManifestSummary } from '../scorm/manifest/manifest.types.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { findVersionManifest } from './cmi5.cross-tenant.repository.ts'
import { Cmi5Guard } from './cmi5.guard.ts'
import {
  Cmi5Service,
  type CourseLaunch,
  type CourseLaunchInput,
  type LaunchedVersion,
  type StructureLoader,
} from './cmi5.service.ts'
import { menuUrl } from './course-menu.ts'
import { LmsWriter } from './lms-writer.ts'
import { TinCanService } from './tincan.service.ts'

export type { CourseLaunch, CourseLaunchInput } from './cmi5.service.ts'

/** A multi-AU cmi5 course opens on its menu (course-menu.ts); each AU is launched from there. */
export interface MenuLaunch {
  kind: 'menu'
  launchUrl: string
}

export interface Cmi5Services {
  cmi5: Cmi5Service
  tincan: TinCanService
  guard: Cmi5Guard
  structureOf: StructureLoader
  /** A version's manifest, blob prefix and package; undefined for an unknown version. */
  versionOf(versionId: string): Promise<LaunchedVersion | undefined>
  /** Launches a cmi5 or Tin Can session; null for SCORM packages (the player launches those). */
  launch(
    scope: TenantScope,
    session: SessionsTable,
    input: CourseLaunchInput,
  ): Promise<CourseLaunch | MenuLaunch | null>
}

/** The cmi5 and Tin Can services over one database; they hold no state of their own. */
export function createCmi5Services(
  db: Kysely<Database>,
  clock: Clock,
  config: Config,
): Cmi5Services {
  const deps = { db, clock, config }
  const cmi5 = new Cmi5Service(deps, new LmsWriter(deps))
  const tincan = new TinCanService(cmi5)
  const manifestOf = async (versionId: string) => {
    const row = await findVersionManifest(db, versionId)
    return row ? { ...row, manifest: JSON.parse(row.manifest) as ManifestSummary } : undefined
  }
  const structureOf = async (versionId: string): Promise<Cmi5Structure | null> =>
    (await manifestOf(versionId))?.manifest.cmi5 ?? null
  return {
    cmi5,
    tincan,
    structureOf,
    async versionOf(versionId) {
      const row = await manifestOf(versionId)
      if (!row) return undefined
      return { packageId: row.package_id, manifest: row.manifest, blobPrefix: row.blob_prefix }
    },
    guard: new Cmi5Guard(cmi5, tincan, structureOf),
    async launch(scope, session, input) {
      // SCORM sessions always have a version: no manifest to read for them.
      if (session.scorm_version !== null) return null
      const row = await manifestOf(session.version_id)
      if (!row || row.manifest.contentType === 'scorm') return null
      const version = {
        packageId: row.package_id,
        manifest: row.manifest,
        blobPrefix: row.blob_prefix,
      }
      if (row.manifest.contentType !== 'cmi5') return tincan.launch(scope, session, version, input)
      const auCount = row.manifest.cmi5?.aus.length ?? 0
      // A course of several AUs opens on its menu unless the caller names the AU.
      if (input.auIndex === undefined && auCount > 1) {
        const expires = new Date(clock.now().getTime() + config.launchTtlSeconds * 1000)
        return { kind: 'menu', launchUrl: menuUrl(deps, session, expires) }
      }
      return cmi5.launch(scope, session, version, input)
    },
  }
}
