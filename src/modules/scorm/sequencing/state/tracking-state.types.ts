/**
 * The tracking state of one learner's attempt on a course (SN book §4.2: activity state,
 * objective and attempt progress information, plus the sequencing control state). Plain JSON,
 * compact: a field at its default (false, 0, unknown) is left out, so a fresh activity is `{}`.
 * The server stores one per attempt and replaces it under a compare-and-set.
 */
export interface TrackingState {
  /** Format version. */
  v: 1
  /** Current Activity; null outside a sequencing session. */
  current: string | null
  /** Suspended Activity; null when none. */
  suspended: string | null
  /** True once a sequencing session has ended (until the next one starts). */
  ended?: boolean
  /** Counter behind `ActivityState.since`: how many attempts have begun on this course. */
  attempts?: number
  /** Per activity id; an activity never touched may be absent. */
  activities: Record<string, ActivityState>
}

export interface ActivityState {
  /** Activity is Active. */
  active?: boolean
  /** Activity is Suspended. */
  suspended?: boolean
  /** Activity Progress Status (an attempt has begun at some time). */
  progress?: boolean
  /** Activity Attempt Count. */
  count?: number
  /** Value of `TrackingState.attempts` when the current attempt began: information an ancestor
   * began its attempt after is not "of its current attempt" (useCurrentAttempt…Info). */
  since?: number
  /** Attempt Completion Status, when Attempt Progress Status is true. */
  completed?: boolean
  /** Attempt Completion Amount (progress measure), when its status is true. */
  amount?: number
  /** The content reported a completion status in this attempt (even `unknown`): the End
   * Attempt Process then leaves completion to it. */
  reportedCompletion?: boolean
  /** The content reported a success status in this attempt (even `unknown`). */
  reportedSuccess?: boolean
  /** Attempt absolute duration so far, seconds (for attemptAbsoluteDurationLimit). */
  duration?: number
  /** Available Children after selection and randomization; absent: manifest order. */
  order?: string[]
  /** Objective Progress Information, per objective id. */
  objectives?: Record<string, ObjectiveState>
}

export interface ObjectiveState {
  /** Objective Satisfied Status, when Objective Progress Status is true. */
  satisfied?: boolean
  /** Objective Normalized Measure, when Objective Measure Status is true. */
  measure?: number
  /** 4th Edition objective data carried for the adlseq maps. */
  raw?: number
  min?: number
  max?: number
  completed?: boolean
  progress?: number
}

/** A global (shared) objective; fields as in ObjectiveState, absent = unknown. */
export type GlobalObjective = ObjectiveState

/** Global objectives by target objective id. The caller owns the scope: per learner when the
 * organization's objectivesGlobalToSystem is true, per learner and course attempt otherwise. */
export type GlobalObjectiveMap = Record<string, GlobalObjective>
