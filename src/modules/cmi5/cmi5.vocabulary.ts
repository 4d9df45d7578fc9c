/** IRIs the cmi5 specification defines (cmi5 "Quartz", sections 9.3, 9.5, 9.6). */
export const VERB = {
  launched: 'http://adlnet.gov/expapi/verbs/launched',
  initialized: 'http://adlnet.gov/expapi/verbs/initialized',
  completed: 'http://adlnet.gov/expapi/verbs/completed',
  passed: 'http://adlnet.gov/expapi/verbs/passed',
  failed: 'http://adlnet.gov/expapi/verbs/failed',
  abandoned: 'https://w3id.org/xapi/adl/verbs/abandoned',
  waived: 'https://w3id.org/xapi/adl/verbs/waived',
  terminated: 'http://adlnet.gov/expapi/verbs/terminated',
  satisfied: 'https://w3id.org/xapi/adl/verbs/satisfied',
  voided: 'http://adlnet.gov/expapi/verbs/voided',
} as const

/** Verbs only the LMS may use in a registration: an AU sending one is refused. */
export const LMS_VERBS: ReadonlySet<string> = new Set([
  VERB.launched,
  VERB.abandoned,
  VERB.waived,
  VERB.satisfied,
])

/** Verbs an AU uses with cmi5's rules ("cmi5 defined statements"). */
export const AU_VERBS: ReadonlySet<string> = new Set([
  VERB.initialized,
  VERB.completed,
  VERB.passed,
  VERB.failed,
  VERB.terminated,
])

export const CATEGORY = {
  cmi5: 'https://w3id.org/xapi/cmi5/context/categories/cmi5',
  moveOn: 'https://w3id.org/xapi/cmi5/context/categories/moveon',
} as const

export const EXT = {
  sessionId: 'https://w3id.org/xapi/cmi5/context/extensions/sessionid',
  masteryScore: 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore',
  launchMode: 'https://w3id.org/xapi/cmi5/context/extensions/launchmode',
  launchUrl: 'https://w3id.org/xapi/cmi5/context/extensions/launchurl',
  moveOn: 'https://w3id.org/xapi/cmi5/context/extensions/moveon',
  launchParameters: 'https://w3id.org/xapi/cmi5/context/extensions/launchparameters',
  reason: 'https://w3id.org/xapi/cmi5/result/extensions/reason',
} as const

export const ACTIVITY_TYPE = {
  course: 'https://w3id.org/xapi/cmi5/activitytype/course',
  block: 'https://w3id.org/xapi/cmi5/activitytype/block',
} as const

/** The state document the LMS writes before each launch (cmi5 §10). */
export const LAUNCH_DATA_STATE_ID = 'LMS.LaunchData'
/** The agent profile of learner preferences (cmi5 §11). */
export const LEARNER_PREFERENCES_PROFILE_ID = 'cmi5LearnerPreferences'

export type LaunchMode = 'Normal' | 'Browse' | 'Review'
