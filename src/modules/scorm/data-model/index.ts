/**
 * SCORM 1.2 / 2004 4th Edition run-time data model. Pure TypeScript (no node: imports, no I/O):
 * bundled into the player, which answers the SCO synchronously, and run on the server, which
 * re-validates every commit.
 *
 *   player:  const rt = createRuntime({ version: '2004', initial, onCommit: send })
 *            window.API_1484_11 = rt.api
 *   server:  const r = validateDelta('2004', body, { initial, state })  // store r.state
 *            on the final delta: endSession('2004', r.state) → next launch's entry/total/carry
 */

export { entrySize, modelBaseOf } from './data-model.ts'
export type { Delta } from './delta-log.ts'
export {
  isoDurationSeconds,
  parseIsoDuration,
  parseTimespan,
  sumIsoDurations,
  sumTimespans,
} from './durations.ts'
export type { NavigationProvider, RequestValidity, ScormVersion } from './element-spec.ts'
export { errorString, type FailureKind } from './errors.ts'
export {
  carried,
  type DataModelOptions,
  DEFAULT_MAX_TOTAL_CHARS,
  initialValues,
  type LaunchData,
  resolveOptions,
} from './launch-data.ts'
export type { ModelBase, ModelWrites } from './model-base.ts'
export {
  type Api12,
  type Api2004,
  createRuntime,
  type DataModelState,
  type Phase,
  type Runtime,
  type RuntimeConfig,
  type TerminateSummary,
} from './runtime.ts'
export { endSession, type SessionOutcome } from './session-end.ts'
export { evaluateCompletionStatus, evaluateSuccessStatus } from './status-rules.ts'
export {
  type DeltaError,
  type DeltaValidation,
  deltaPosition,
  MAX_DELTA_ENTRIES,
  type ValidateDeltaContext,
  validateDelta,
} from './validate-delta.ts'
