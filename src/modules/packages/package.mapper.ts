import type {
  PackageRuntimeWarningsTable,
  PackagesTable,
  PackageVersionsTable,
} from '../../infra/db/schema.ts'

/** How the runtime treats a package's content (`PATCH /packages/{id}`). */
export interface RuntimeOptionsView {
  /**
   * Accept interaction and objective ids the SCORM 2004 standard refuses (any non-empty string,
   * e.g. Storyline 360's "SL360 LMS SCORM 2004"). Default false: refused with error 406.
   */
  lenient_identifiers: boolean
}

/** Values the package's content wrote that the runtime refused, so their data is missing. */
export interface RuntimeWarningView {
  /** e.g. type_mismatch (406), out_of_range (407), set_failure (351), data_full. */
  code: string
  /** The element, indices as N: cmi.interactions.N.objectives.N.id */
  element: string
  /** The latest refused value (at most 200 characters). */
  example: string
  count: number
  first_seen_at: string
  last_seen_at: string
}

export function toRuntimeOptions(json: string | null | undefined): RuntimeOptionsView {
  const stored = JSON.parse(json || '{}') as { lenient_identifiers?: unknown }
  return { lenient_identifiers: stored.lenient_identifiers === true }
}

export function toRuntimeWarningView(row: PackageRuntimeWarningsTable): RuntimeWarningView {
  return {
    code: row.code,
    element: row.element,
    example: row.example,
    count: Number(row.count),
    first_seen_at: row.first_seen_at,
    last_seen_at: row.last_seen_at,
  }
}

/** A package as the API shows it (snake_case, like the spec). */
export interface PackageView {
  id: string
  title: string
  description: string | null
  status: 'active' | 'archived'
  content_type: 'scorm' | 'cmi5' | 'xapi'
  scorm_version: '1.2' | '2004' | null
  active_version_id: string | null
  version_count: number
  created_at: string
  updated_at: string
  archived_at: string | null
  runtime_options: RuntimeOptionsView
}

export interface VersionView {
  id: string
  package_id: string
  version_number: number
  active: boolean
  content_type: 'scorm' | 'cmi5' | 'xapi'
  scorm_version: '1.2' | '2004' | null
  edition: string | null
  title: string
  file_count: number
  total_bytes: number
  original_filename: string
  uploaded_by: string | null
  created_at: string
  activated_at: string | null
}

export function toPackageView(row: PackagesTable): PackageView {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    content_type: row.content_type,
    scorm_version: row.scorm_version,
    active_version_id: row.active_version_id,
    version_count: Number(row.latest_version_number),
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
    runtime_options: toRuntimeOptions(row.runtime_options),
  }
}

export function toVersionView(
  row: PackageVersionsTable,
  activeVersionId: string | null,
): VersionView {
  return {
    id: row.id,
    package_id: row.package_id,
    version_number: Number(row.version_number),
    active: row.id === activeVersionId,
    content_type: row.content_type,
    scorm_version: row.scorm_version,
    edition: row.edition,
    title: row.title,
    file_count: Number(row.file_count),
    total_bytes: Number(row.total_bytes),
    original_filename: row.original_filename,
    uploaded_by: row.uploaded_by,
    created_at: row.created_at,
    activated_at: row.activated_at,
  }
}
