/**
 * SCORM 2004 4th Edition Sequencing and Navigation: a pure engine (no I/O, no node: imports) that
 * follows the SN book's processes. See README.md for how the server and the player call it.
 */
export {
  type NavigationOutcome,
  processNavigationRequest,
  reportScoResults,
} from './engine.ts'
export { type LaunchObjective, launchObjectives } from './launch-objectives.ts'
export type {
  NavigationRequest,
  NavigationRequestType,
} from './navigation/navigation-request.ts'
export type { SequencingRequestType } from './navigation/termination-request.ts'
export {
  isNavigationRequestValid,
  navigationRequestValidity,
  parseNavigationRequest,
  type RequestValidity,
  requestAfterTerminate,
} from './request-valid.ts'
export type { ObjectiveResult, ScoResults } from './sco-results.ts'
export { rollupSession, type SessionRollup, type SessionStatus } from './session-rollup.ts'
export { globalObjectiveIds } from './state/global-objectives.ts'
export { type ContextOptions, createTrackingState } from './state/sequencing-context.ts'
export type * from './state/tracking-state.types.ts'
export type * from './tree/activity-tree.types.ts'
export { buildActivityTree } from './tree/build-activity-tree.ts'
export { type ControlState, type TocEntry, type UiState, uiState } from './ui-state.ts'
