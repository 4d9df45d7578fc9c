import { type Static, Type } from 'typebox'
import type { StoredManifest } from '../../../modules/packages/package-ingest.ts'
import { NextCursor, NullableTimestamp, TenantIdField, Timestamp } from '../../schemas/common.ts'

const ContentType = Type.Union([Type.Literal('scorm'), Type.Literal('cmi5'), Type.Literal('xapi')])
const ScormVersion = Type.Union([Type.Literal('1.2'), Type.Literal('2004'), Type.Null()])

export const RuntimeOptions = Type.Object(
  {
    lenient_identifiers: Type.Boolean({
      description:
        'Accept interaction and objective ids SCORM 2004 refuses (any non-empty string, e.g. ' +
        'Storyline 360\'s "SL360 LMS SCORM 2004"). Default false: refused with error 406, as ' +
        'the standard requires.',
    }),
  },
  { description: "How the runtime treats this package's content" },
)

export const RuntimeWarning = Type.Object({
  code: Type.String({ description: 'type_mismatch, out_of_range, set_failure, data_full, …' }),
  element: Type.String({ description: 'Indices as N: cmi.interactions.N.objectives.N.id' }),
  example: Type.String({ description: 'The latest refused value (at most 200 characters)' }),
  count: Type.Integer(),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
})
export type RuntimeWarning = Static<typeof RuntimeWarning>

/** PATCH /packages/{id}: only the fields given change. */
export const PackagePatchBody = Type.Object(
  { runtime_options: Type.Partial(RuntimeOptions) },
  { additionalProperties: false },
)

export const Package = Type.Object(
  {
    id: Type.String({ description: 'Package id (pkg_…), called package_id elsewhere' }),
    title: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
    content_type: ContentType,
    scorm_version: ScormVersion,
    active_version_id: Type.Union([Type.String(), Type.Null()]),
    version_count: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
    archived_at: NullableTimestamp,
    runtime_options: RuntimeOptions,
  },
  { $id: 'Package', title: 'Package' },
)
export type Package = Static<typeof Package>

export const PackageVersion = Type.Object(
  {
    id: Type.String({ description: 'Version id (pv_…)' }),
    package_id: Type.String(),
    version_number: Type.Integer(),
    active: Type.Boolean(),
    content_type: ContentType,
    scorm_version: ScormVersion,
    edition: Type.Union([Type.String(), Type.Null()], {
      description: 'e.g. "2004 4th Edition", "1.2"',
    }),
    title: Type.String(),
    file_count: Type.Integer(),
    total_bytes: Type.Integer(),
    original_filename: Type.String(),
    uploaded_by: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    activated_at: NullableTimestamp,
  },
  { $id: 'PackageVersion', title: 'PackageVersion' },
)
export type PackageVersion = Static<typeof PackageVersion>

export const PackageDetail = Type.Object(
  {
    package: Type.Ref('Package'),
    versions: Type.Array(Type.Ref('PackageVersion')),
    manifest: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'Manifest summary of the active version: organizations, items, SCOs, launch',
    }),
    warnings: Type.Array(Type.String()),
    runtime_warnings: Type.Array(RuntimeWarning, {
      description:
        'Values the content wrote that the runtime refused (so that data is missing), most ' +
        'recent first, at most 50',
    }),
  },
  { $id: 'PackageDetail', title: 'PackageDetail' },
)
/**
 * With its `Type.Ref`s resolved (a bare `Static` leaves a Ref `unknown`), and `manifest` as the
 * ingest stores it (the schema leaves that object open).
 */
export type PackageDetail = Omit<
  Static<typeof PackageDetail, { Package: typeof Package; PackageVersion: typeof PackageVersion }>,
  'manifest'
> & { manifest: StoredManifest | null }

export const PackageList = Type.Object({
  packages: Type.Array(Type.Ref('Package')),
  next_cursor: NextCursor,
})
export type PackageList = Static<typeof PackageList, { Package: typeof Package }>

export const PackageIdParams = Type.Object({ packageId: Type.String() })
export const VersionParams = Type.Object({ packageId: Type.String(), versionId: Type.String() })

export const UploadUrlBody = Type.Object({
  tenant_id: Type.Optional(TenantIdField),
  uploaded_by: Type.Optional(Type.String({ maxLength: 200 })),
  filename: Type.String({ minLength: 1, maxLength: 255 }),
  file_size: Type.Integer({ minimum: 1, description: 'Exact size in bytes of the zip to PUT' }),
})

export const UploadUrlResponse = Type.Object({
  presigned_url: Type.String(),
  required_put_headers: Type.Record(Type.String(), Type.String()),
  storage_path: Type.String(),
  expires_at: Timestamp,
})
export type UploadUrlResponse = Static<typeof UploadUrlResponse>

export const ProcessBody = Type.Object({
  tenant_id: Type.Optional(TenantIdField),
  uploaded_by: Type.Optional(Type.String({ maxLength: 200 })),
  storage_path: Type.String({ minLength: 1, maxLength: 1024 }),
  original_filename: Type.Optional(Type.String({ maxLength: 255 })),
})

export const DownloadQuery = Type.Object({
  version_id: Type.Optional(Type.String({ description: 'Default: the active version' })),
})

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String()),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('archived')])),
})
