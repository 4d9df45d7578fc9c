/**
 * Types the runtime's files share, kept apart so that none of them imports the service that
 * wires them (the loader, the delivery service, the commits and the delivery record all read
 * a `Loaded` session).
 */
import type { SessionsTable } from '../../infra/db/tables/sessions.ts'
import type { StoredManifest } from '../packages/package-ingest.ts'
import type { DataModelOptions } from '../scorm/data-model/index.ts'
import type { CourseItem } from '../sessions/course-items.ts'
import type { Sequencing } from './attempt-sequencing.ts'

/** What a package version gives the runtime; versions never change, so this is cached. */
export interface VersionInfo {
  version: '1.2' | '2004'
  items: CourseItem[]
  trackedCount: number
  manifest: StoredManifest
  blobPrefix: string
  /** SCORM 2004: the version's activity tree (attempt-sequencing.ts); null otherwise. */
  sequencing: Sequencing | null
}

/** A session as the runtime works on it: its row, its version, its data-model options. */
export interface Loaded extends VersionInfo {
  session: SessionsTable
  options: DataModelOptions
}
