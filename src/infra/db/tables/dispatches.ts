import type { Mode } from '../schema.ts'

/**
 * Lifecycle of a dispatch as stored. "expired" is not stored: it is read from `expires_at`
 * against the clock, so a launch is refused the moment the expiry passes (docs/dispatch.md).
 */
export type DispatchLifecycle = 'active' | 'paused' | 'archived' | 'deleted'

/** One package delivered to one client organisation's LMS through a wrapper package (`dsp_…`). */
export interface DispatchesTable {
  id: string
  tenant_id: string
  mode: Mode
  package_id: string
  name: string
  status: DispatchLifecycle
  /** Unique learners who may launch; null means no limit. */
  license_limit: number | null
  /** After this instant launches are refused; null means never. */
  expires_at: string | null
  /** JSON array of canonical domain rules (see allowed-domains.ts); empty allows every origin. */
  allowed_domains: string
  /** JSON array, kept in sync with `dispatch_tags` (which the tag filter uses). */
  tags: string
  /** Learners admitted so far; raised only by a conditional update, never past the limit. */
  learner_count: number
  launch_count: number
  refusal_count: number
  created_at: string
  updated_at: string
  paused_at: string | null
  archived_at: string | null
  deleted_at: string | null
  /** When dispatch.expired was recorded for the current `expires_at`; reset by extend. */
  expired_event_at: string | null
  /** Wrapper tokens of another generation are refused; raised by revoking wrappers. */
  wrapper_generation: number
  /** The UTC minute (`YYYY-MM-DDTHH:MM`) `new_learner_window_count` counts launches of. */
  new_learner_window: string | null
  /** Launches in that minute that took a new seat or registration (the rate limit). */
  new_learner_window_count: number
  /** Registrations made for an LMS learner who had one already (launch without its key). */
  separated_count: number
  /** Launches refused by the new-learner rate limit. */
  rate_limited_count: number
}

/** One row per learner admitted to a dispatch: the licence seat. */
export interface DispatchLearnersTable {
  dispatch_id: string
  learner_id: string
  tenant_id: string
  mode: Mode
  first_launch_at: string
  last_launch_at: string
  launch_count: number
}

/**
 * One client-LMS registration of a learner (docs/dispatch.md): the key its wrapper keeps in the
 * LMS's own SCORM data is what resumes `learner_id`'s sessions. Only the key's hash is stored.
 */
export interface DispatchRegistrationsTable {
  dispatch_id: string
  /** SHA-256 of the learner key, hex. */
  key_hash: string
  /** The learner id the client LMS reported. */
  lms_learner_id: string
  /** The learner id of our sessions: the LMS's, or a separate one (`{lms id}~{suffix}`). */
  learner_id: string
  tenant_id: string
  mode: Mode
  created_at: string
  last_launch_at: string
}

export interface DispatchTagsTable {
  dispatch_id: string
  tenant_id: string
  mode: Mode
  tag: string
}

export interface DispatchTables {
  dispatches: DispatchesTable
  dispatch_learners: DispatchLearnersTable
  dispatch_tags: DispatchTagsTable
  dispatch_registrations: DispatchRegistrationsTable
}
