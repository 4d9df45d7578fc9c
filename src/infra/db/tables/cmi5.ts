import type { Mode } from '../schema.ts'

/**
 * A cmi5 registration: one learner's enrolment in one course, named by a UUID the AU sees as
 * `registration`. `state` is the JSON of `RegistrationState` (modules/cmi5/move-on.ts): what each
 * AU has reported and which AUs, blocks and the course are satisfied.
 */
export interface Cmi5RegistrationsTable {
  tenant_id: string
  mode: Mode
  id: string
  package_id: string
  version_id: string
  /** The Courseport session that follows this registration's status. */
  session_id: string
  learner_id: string
  /** The xAPI Agent (JSON) every statement of the registration is about. */
  actor: string
  state: string
  created_at: string
  updated_at: string
}

/**
 * One launch of an AU (a cmi5 "session", named by the UUID in the `sessionid` extension) or of a
 * Tin Can course. The fetch URL can be used once (`fetched_at`); the LRS credential it issued is
 * `credential_id`. `status` moves launched → initialized → terminated, or to abandoned.
 */
export interface Cmi5LaunchesTable {
  tenant_id: string
  mode: Mode
  id: string
  kind: 'cmi5' | 'tincan'
  registration_id: string
  session_id: string
  au_index: number
  /** The LMS-generated activity id the AU uses as statement object. */
  activity_id: string
  launch_mode: 'Normal' | 'Browse' | 'Review'
  status: 'launched' | 'initialized' | 'terminated' | 'abandoned'
  /** SHA-256 of the fetch URL's secret. */
  fetch_hash: string
  fetched_at: string | null
  /** 1 once the AU asked for cmi5LearnerPreferences (§11: before it may send initialized). */
  preferences_read: number
  /** JSON list of the defined verbs this session stored (§9.3: each at most once). */
  verbs: string
  credential_id: string | null
  launched_at: string
  updated_at: string
}

export interface Cmi5Tables {
  cmi5_registrations: Cmi5RegistrationsTable
  cmi5_launches: Cmi5LaunchesTable
}
