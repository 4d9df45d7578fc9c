import type { Generated, Kysely, Transaction } from 'kysely'
import type { AccountTables } from './tables/accounts.ts'
import type { Cmi5Tables } from './tables/cmi5.ts'
import type { ConversionTables } from './tables/conversions.ts'
import type { DispatchTables } from './tables/dispatches.ts'
import type { LrsTables } from './tables/lrs.ts'
import type { ReportTables } from './tables/reports.ts'
import type { SessionTables } from './tables/sessions.ts'
import type { WebhookTables } from './tables/webhooks.ts'

/**
 * Table types. Conventions (DESIGN §5): every tenant-owned row has `tenant_id` and `mode`;
 * timestamps are ISO 8601 UTC strings in both dialects (they sort as text); JSON is stored as
 * text and parsed by the entity's mapper; booleans are 0/1 integers.
 */
export type Mode = 'live' | 'test'

export interface PlansTable {
  id: string
  name: string
  active_learner_allotment: number
  /** Null means unlimited. */
  monthly_conversions: number | null
  created_at: string
}

export interface TenantsTable {
  id: string
  name: string
  plan_id: string
  settings: string
  created_at: string
}

export interface ApiKeysTable {
  id: string
  tenant_id: string
  mode: Mode
  key_hash: string
  /** First characters of the key, shown in listings so a user can tell keys apart. */
  key_hint: string
  created_at: string
  revoked_at: string | null
  last_used_at: string | null
}

export interface PackagesTable {
  id: string
  tenant_id: string
  mode: Mode
  title: string
  description: string | null
  status: 'active' | 'archived'
  content_type: 'scorm' | 'cmi5' | 'xapi'
  scorm_version: '1.2' | '2004' | null
  active_version_id: string | null
  latest_version_number: number
  created_at: string
  updated_at: string
  archived_at: string | null
  /** JSON: the runtime options of the package's sessions (`{"lenient_identifiers": true}`). */
  runtime_options: string
}

/** Values a package's content wrote that the runtime refused, counted per code and element. */
export interface PackageRuntimeWarningsTable {
  package_id: string
  tenant_id: string
  mode: Mode
  code: string
  /** The element with its indices as `N` (`cmi.interactions.N.objectives.N.id`). */
  element: string
  /** The latest refused value (clipped). */
  example: string
  count: number
  first_seen_at: string
  last_seen_at: string
}

export interface PackageVersionsTable {
  id: string
  package_id: string
  tenant_id: string
  mode: Mode
  version_number: number
  content_type: 'scorm' | 'cmi5' | 'xapi'
  scorm_version: '1.2' | '2004' | null
  edition: string | null
  title: string
  manifest: string
  file_count: number
  total_bytes: number
  blob_prefix: string
  zip_blob_key: string
  original_filename: string
  uploaded_by: string | null
  created_at: string
  activated_at: string | null
}

export interface UploadIntentsTable {
  id: string
  tenant_id: string
  mode: Mode
  storage_path: string
  filename: string
  file_size: number
  uploaded_by: string | null
  expires_at: string
  consumed_at: string | null
  created_at: string
}

export interface AuditEventsTable {
  seq: Generated<number>
  id: string
  tenant_id: string
  mode: Mode
  type: string
  entity_type: string | null
  entity_id: string | null
  severity: 'info' | 'warn'
  data: string
  occurred_at: string
  fanned_out_at: string | null
}

export interface IdempotencyKeysTable {
  tenant_id: string
  mode: Mode
  key: string
  fingerprint: string
  status_code: number | null
  response_body: string | null
  created_at: string
}

export interface RateLimitsTable {
  bucket: string
  window_start: number
  count: number
}

/** The job queue (DESIGN §9; src/infra/queue). */
export interface JobsTable {
  id: string
  task: string
  /** JSON. */
  payload: string
  /**
   * At most one job per key. A completed or failed job keeps its key (so `unsafe_dedupe`
   * enqueues, e.g. schedule periods, stay deduplicated) until a new enqueue takes the key over.
   */
  job_key: string | null
  /** Earliest start; after a failure, when the retry is due. */
  run_at: string
  /** Attempts started so far (counted when claimed). */
  attempts: number
  max_attempts: number
  /** While `running`: after this instant any worker may claim the job again. */
  lease_until: string | null
  /** Fencing token of the current claim; outcomes are written only with the matching token. */
  lease_token: string | null
  last_error: string | null
  status: 'pending' | 'running' | 'completed' | 'failed'
  created_at: string
  updated_at: string
}

/** Persisted periodic jobs, fired by whichever worker sees them due first. */
export interface JobSchedulesTable {
  name: string
  task: string
  interval_seconds: number
  /** The pending period's slot; advanced only by compare-and-set. */
  next_run_at: string
  last_run_at: string | null
}

export interface Database
  extends SessionTables,
    WebhookTables,
    ConversionTables,
    DispatchTables,
    LrsTables,
    Cmi5Tables,
    AccountTables,
    ReportTables {
  plans: PlansTable
  tenants: TenantsTable
  api_keys: ApiKeysTable
  packages: PackagesTable
  package_runtime_warnings: PackageRuntimeWarningsTable
  package_versions: PackageVersionsTable
  upload_intents: UploadIntentsTable
  audit_events: AuditEventsTable
  idempotency_keys: IdempotencyKeysTable
  rate_limits: RateLimitsTable
  jobs: JobsTable
  job_schedules: JobSchedulesTable
}

/** A database handle or an open transaction: repositories accept either. */
export type Executor = Kysely<Database> | Transaction<Database>

export type Dialect = 'sqlite' | 'postgres'
