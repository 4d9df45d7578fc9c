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
}
