import type { Mode } from '../schema.ts'

/** One attempt of one learner on one package (the spec's "session"). */
export interface SessionsTable {
  id: string
  tenant_id: string
  mode: Mode
  package_id: string
  /** The version the attempt started on; it keeps playing that version. */
  version_id: string
  learner_id: string
  learner_name: string
  dispatch_id: string | null
  attempt_number: number
  /** 1 while this is the learner's current attempt on the package; launches resume it. */
  open: number
  scorm_version: '1.2' | '2004' | null
  completion_status: 'not attempted' | 'incomplete' | 'completed'
  success_status: 'unknown' | 'passed' | 'failed'
  score_scaled: number | null
  score_raw: number | null
  score_min: number | null
  score_max: number | null
  progress_percent: number | null
  /** ISO 8601 duration of the latest learner session (launch). */
  session_time: string | null
  /** Seconds spent over all launches of the attempt. */
  time_spent_seconds: number
  suspended: number
  current_item_id: string | null
  launch_count: number
  created_at: string
  updated_at: string
  last_launched_at: string
  completed_at: string | null
  completed_event_at: string | null
  failed_event_at: string | null
  /**
   * JSON TrackingState of the SCORM 2004 sequencing engine for this attempt (migration 0016);
   * null until its first rollup (and for other content).
   */
  sequencing_state?: string | null
  /** Compare-and-set position of `sequencing_state`: moved on by every write (migration 0021). */
  sequencing_version?: number
  /** The delivery the sequencer launched last (`scd_…`), the one a navigation leaves (0021). */
  sequencing_delivery_id?: string | null
}

/** Runtime record of one SCO within a session. */
export interface ScoStatesTable {
  session_id: string
  item_id: string
  tenant_id: string
  mode: Mode
  /** JSON: learner-writable values carried into the next launch (empty when not suspended). */
  carry: string
  completion_status: string
  success_status: string
  score_scaled: number | null
  score_raw: number | null
  score_min: number | null
  score_max: number | null
  progress_measure: number | null
  /** Attempt total time in the SCO's own format (ISO 8601 for 2004, CMITimespan for 1.2). */
  total_time: string | null
  suspended: number
  launched: number
  /** The SCO's open delivery (launch), null when none is open. */
  delivery_id: string | null
  /** The last commit the open delivery applied (its compare-and-set: see runtime-commits.ts). */
  delivery_seq: number
  /** Characters of the SCO's record in `sco_values` (element names plus values). */
  data_chars: number
  updated_at: string
}

/**
 * A SCO's runtime record, one row per element: every element's latest committed value over the
 * attempt's launches (a commit writes the elements it changed; nothing else removes or replaces
 * them), plus the values the LMS supplied when the SCO was first launched.
 */
export interface ScoValuesTable {
  session_id: string
  item_id: string
  element: string
  value: string
  /** The launch whose commit wrote the value; null for values the LMS supplied. */
  delivery_id: string | null
}

/** One launch of a SCO (a "delivery"): commits carry increasing sequence numbers within it. */
export interface ScoDeliveriesTable {
  id: string
  session_id: string
  item_id: string
  tenant_id: string
  mode: Mode
  /** JSON LaunchData the delivery started with (the server re-validates against it). */
  launch_data: string
  /**
   * The last commit applied, written when the delivery ends; while it is open, its SCO row's
   * `delivery_seq` is the current one.
   */
  last_seq: number
  ended_at: string | null
  created_at: string
  updated_at: string
}

/** Distinct learners who launched something in a billing period (calendar month, UTC). */
export interface UsageLearnersTable {
  tenant_id: string
  mode: Mode
  period: string
  learner_id: string
  first_launch_at: string
}

export interface UsageCountersTable {
  tenant_id: string
  mode: Mode
  period: string
  active_learners: number
}

/**
 * One SCORM 2004 shared data bucket (adl.data, adlcp:data/adlcp:map): `scope` is
 * `learner:{learner_id}` when the organization shares data system-wide (the default), else
 * `session:{session_id}` (this attempt only).
 */
export interface SharedDataTable {
  tenant_id: string
  mode: Mode
  scope: string
  target_id: string
  store: string
  updated_at: string
}

/**
 * One SCORM 2004 global objective (objective maps): `scope` is `learner:{learner_id}` when the
 * organization's objectivesGlobalToSystem is true (the default), else `session:{session_id}`.
 */
export interface GlobalObjectivesTable {
  tenant_id: string
  mode: Mode
  scope: string
  objective_id: string
  /** JSON GlobalObjective (satisfied, measure, raw, min, max, completed, progress). */
  value: string
  updated_at: string
}

/**
 * PostgreSQL only: a session's `updated_at` with its scope and package, for the list by
 * `updated_at` (migration 0026). Written only by triggers on `sessions`, so that a commit's
 * session row is updated in place (no index of `sessions` holds `updated_at` there).
 */
export interface SessionActivityTable {
  session_id: string
  tenant_id: string
  mode: Mode
  package_id: string
  updated_at: string
}

export interface SessionTables {
  sessions: SessionsTable
  session_activity: SessionActivityTable
  sco_states: ScoStatesTable
  sco_values: ScoValuesTable
  sco_deliveries: ScoDeliveriesTable
  usage_learners: UsageLearnersTable
  usage_counters: UsageCountersTable
  shared_data: SharedDataTable
  global_objectives: GlobalObjectivesTable
}
