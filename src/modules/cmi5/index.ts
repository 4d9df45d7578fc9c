import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../infra/db/schema.ts'
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import type { Clock } from '../../shared/clock.ts'
import type { JsonObject } from '../lrs/xapi-primitives.ts'
import type { Cmi5Structure, ManifestSummary } from '../scorm/manifest/manifest.types.ts'
import type { TenantScope } from '../tenants/tenant-scope.ts'
import { Cmi5Guard } from './cmi5.guard.ts'
import { findVersionManifest } from './cmi5.repository.ts'
import { Cmi5Launcher, type CourseLaunch } from './cmi5-launch.service.ts'
import { menuUrl } from './course-menu.ts'
import { fetchAuthToken } from './fetch-token.ts'
import type { LaunchedVersion } from './launch-url.ts'
import { Cmi5LmsActions, type StructureLoader } from './lms-actions.service.ts'
import { type Cmi5Deps, LmsWriter } from './lms-writer.ts'
import { Cmi5Registrations, type CourseLaunchInput } from './registration.service.ts'
import { TinCanService } from './tincan.service.ts'

export type { CourseLaunch } from './cmi5-launch.service.ts'
export type { CourseLaunchInput } from './registration.service.ts'

/** A multi-AU cmi5 course opens on its menu (course-menu.ts); each AU is launched from there. */
export interface MenuLaunch {
  kind: 'menu'
  launchUrl: string
}

export interface Cmi5Services {
  deps: Cmi5Deps
  /** Launches one AU of a cmi5 course (the menu's links, and single-AU courses). */
  launcher: Cmi5Launcher
  /** Abandon and waive: what the LMS does to a registration on its own. */
  actions: Cmi5LmsActions
  tincan: TinCanService
  guard: Cmi5Guard
  structureOf: StructureLoader
  /** A version's manifest, blob prefix and package; undefined for an unknown version. */
  versionOf(scope: TenantScope, versionId: string): Promise<LaunchedVersion | undefined>
  /** The fetch URL's answer (cmi5 §8.2): an `auth-token` once, then error codes. */
  fetch(launchId: string, secret: string): Promise<JsonObject>
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
  const writer = new LmsWriter(deps)
  const registrations = new Cmi5Registrations(deps, writer)
  const versionOf = async (
    scope: TenantScope,
    versionId: string,
  ): Promise<LaunchedVersion | undefined> => {
    const row = await findVersionManifest(db, scope, versionId)
    if (!row) return undefined
    const manifest = JSON.parse(row.manifest) as ManifestSummary
    return { packageId: row.package_id, manifest, blobPrefix: row.blob_prefix }
  }
  const structureOf = async (
    scope: TenantScope,
    versionId: string,
  ): Promise<Cmi5Structure | null> => (await versionOf(scope, versionId))?.manifest.cmi5 ?? null
  const actions = new Cmi5LmsActions(registrations, structureOf)
  const launcher = new Cmi5Launcher(registrations, actions)
  const tincan = new TinCanService(registrations)
  return {
    deps,
    launcher,
    actions,
    tincan,
    structureOf,
    versionOf,
    fetch: (launchId, secret) => fetchAuthToken(deps, writer, launchId, secret),
    guard: new Cmi5Guard(registrations, tincan, structureOf),
    async launch(scope, session, input) {
      // SCORM sessions always have a version: no manifest to read for them.
      if (session.scorm_version !== null) return null
      const version = await versionOf(scope, session.version_id)
      if (!version || version.manifest.contentType === 'scorm') return null
      if (version.manifest.contentType !== 'cmi5') {
        return tincan.launch(scope, session, version, input)
      }
      const auCount = version.manifest.cmi5?.aus.length ?? 0
      // A course of several AUs opens on its menu unless the caller names the AU.
      if (input.auIndex === undefined && auCount > 1) {
        const expires = new Date(clock.now().getTime() + config.launchTtlSeconds * 1000)
        return { kind: 'menu', launchUrl: menuUrl(deps, session, expires) }
      }
      return launcher.launch(scope, session, version, input)
    },
  }
}
