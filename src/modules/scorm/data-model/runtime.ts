/**
 * The API object a SCO talks to (window.API for 1.2, window.API_1484_11 for 2004): the
 * not-initialized → running → terminated state machine with each version's error codes, over the
 * data-model engine, collecting changes as numbered deltas for the server. Synchronous and pure:
 * it runs inside the player page and must answer the SCO immediately.
 */
import { createDataModel, type DataModel } from './data-model.ts'
import { type Delta, DeltaLog } from './delta-log.ts'
import type { NavigationProvider, ScormVersion } from './element-spec.ts'
import { clipDiagnostic, codeFor, errorString, type FailureKind } from './errors.ts'
import { type DataModelOptions, initialValues, type LaunchData, modelEnv } from './launch-data.ts'

export type Phase = 'not-initialized' | 'running' | 'terminated'

export interface DataModelState {
  readonly version: ScormVersion
  /** Canonical element name → stored value (what the SCO set, plus the LMS-supplied values). */
  readonly values: Readonly<Record<string, string>>
}

export interface TerminateSummary {
  /** The pending adl.nav.request ('_none_' when none; always '_none_' for 1.2). */
  readonly navRequest: string
  /** cmi.exit / cmi.core.exit as last set ('' when never set). */
  readonly exit: string
  readonly state: DataModelState
}

export interface RuntimeConfig<V extends ScormVersion = ScormVersion> {
  readonly version: V
  readonly initial: LaunchData
  readonly options?: DataModelOptions
  /** Answers adl.nav.request_valid.*; without it every answer is 'unknown'. */
  readonly navigation?: NavigationProvider
  /**
   * Receives each commit (Commit, Terminate, LMSCommit, LMSFinish) synchronously. Return false to
   * make the call fail (2004: 391, 1.2: 101); any other return value counts as accepted.
   */
  readonly onCommit?: (delta: Delta) => boolean | undefined
  /** Called after a successful Terminate/LMSFinish, e.g. to hand the nav request to the sequencer. */
  readonly onTerminate?: (summary: TerminateSummary) => void
}

/** Anything a SCO passes in: content written in plain JS sends numbers, null or nothing. */
type Arg = unknown

export interface Api2004 {
  readonly version: '1.0'
  Initialize(arg?: Arg): string
  Terminate(arg?: Arg): string
  GetValue(element?: Arg): string
  SetValue(element?: Arg, value?: Arg): string
  Commit(arg?: Arg): string
  GetLastError(): string
  GetErrorString(code?: Arg): string
  GetDiagnostic(code?: Arg): string
}

export interface Api12 {
  LMSInitialize(arg?: Arg): string
  LMSFinish(arg?: Arg): string
  LMSGetValue(element?: Arg): string
  LMSSetValue(element?: Arg, value?: Arg): string
  LMSCommit(arg?: Arg): string
  LMSGetLastError(): string
  LMSGetErrorString(code?: Arg): string
  LMSGetDiagnostic(code?: Arg): string
}

export interface Runtime<A> {
  /** The object to expose to the SCO. */
  readonly api: A
  readonly version: ScormVersion
  phase(): Phase
  /** Full current state as plain JSON. */
  state(): DataModelState
  /** Changes not committed yet, as the next commit would send them; undefined when none. */
  pendingDelta(): Delta | undefined
  /**
   * An LMS-side commit (autosave timer, page unload): hands pending changes to onCommit like the
   * SCO's Commit would, without touching the SCO's error state. Returns the delta, or undefined
   * when there was nothing to send (a `final` commit is always sent).
   */
  commitNow(opts?: { final?: boolean }): Delta | undefined
  /** Every change after commit `seq` (current values), for resending after failed commits. */
  changesSince(seq: number): Delta
  /** GetValue without touching the SCO's error state or phase; undefined on any failure. */
  read(element: string): string | undefined
  lastError(): { code: number; diagnostic: string }
}

type Guard = { before: number; after: number }

// Long on purpose: one closure over the runtime's phase and last error, which every API call reads
// and writes.
export function createRuntime(config: RuntimeConfig<'2004'>): Runtime<Api2004>
export function createRuntime(config: RuntimeConfig<'1.2'>): Runtime<Api12>
export function createRuntime(config: RuntimeConfig): Runtime<Api2004 | Api12>
export function createRuntime(config: RuntimeConfig): Runtime<Api2004 | Api12> {
  const { version } = config
  const env = modelEnv(version, config.initial, config.options, config.navigation)
  const model: DataModel = createDataModel(env, initialValues(version, config.initial))
  const log = new DeltaLog()
  let phase: Phase = 'not-initialized'
  let code = 0
  let diagnostic = ''

  const is2004 = version === '2004'
  // Codes for a call made before Initialize / after Terminate (1.2 has only "not initialized").
  const G = {
    term: is2004 ? { before: 112, after: 113 } : { before: 301, after: 301 },
    get: is2004 ? { before: 122, after: 123 } : { before: 301, after: 301 },
    set: is2004 ? { before: 132, after: 133 } : { before: 301, after: 301 },
    commit: is2004 ? { before: 142, after: 143 } : { before: 301, after: 301 },
  }
  const commitFailure = is2004 ? 391 : 101

  function setError(c: number, d = '') {
    code = c
    diagnostic = clipDiagnostic(d || errorString(version, String(c)))
  }
  const ok = (value: string) => {
    setError(0)
    return value
  }
  const failWith = (c: number, d: string, value = 'false') => {
    setError(c, d)
    return value
  }
  const argError = (arg: Arg) =>
    str(arg) !== '' ? failWith(201, 'the argument must be an empty string') : undefined
  const notRunning = (g: Guard, value = 'false') => {
    if (phase === 'running') return undefined
    return phase === 'terminated'
      ? failWith(g.after, 'the API was terminated', value)
      : failWith(g.before, 'the API is not initialized yet', value)
  }

  /** Sends pending changes; undefined when there was nothing to send, false when refused. */
  function send(final: boolean): Delta | undefined | false {
    // A Commit with nothing new sends nothing, so sequence numbers only count real deltas.
    if (!final && !log.pending(model)) return undefined
    const delta = log.commit(model, final)
    if (config.onCommit?.(delta) === false) {
      log.rollback(delta)
      return false
    }
    return delta
  }
  const commit = (final: boolean) => send(final) !== false

  const initialize = (arg: Arg) => {
    const bad = argError(arg)
    if (bad) return bad
    if (phase === 'running') return failWith(is2004 ? 103 : 101, 'already initialized')
    if (phase === 'terminated') return failWith(is2004 ? 104 : 101, 'the API was terminated')
    phase = 'running'
    return ok('true')
  }
  const terminate = (arg: Arg) => {
    const bad = argError(arg) ?? notRunning(G.term)
    if (bad) return bad
    if (!commit(true)) return failWith(commitFailure, 'the LMS did not accept the final commit')
    phase = 'terminated'
    config.onTerminate?.({
      navRequest: (is2004 && model.peek('adl.nav.request')) || '_none_',
      exit: model.peek(is2004 ? 'cmi.exit' : 'cmi.core.exit') ?? '',
      state: snapshot(),
    })
    return ok('true')
  }
  const getValue = (element: Arg) => {
    const blocked = notRunning(G.get, '')
    if (blocked !== undefined) return blocked
    const r = model.get(str(element))
    return r.ok ? ok(r.value) : failWith(kindCode(r.failure.kind), r.failure.diagnostic, '')
  }
  const setValue = (element: Arg, value: Arg) => {
    const blocked = notRunning(G.set)
    if (blocked) return blocked
    const r = model.set(str(element), str(value))
    if (!r.ok) return failWith(kindCode(r.failure.kind), r.failure.diagnostic)
    if (r.changed) log.touch(r.path)
    return ok('true')
  }
  const commitCall = (arg: Arg) => {
    const bad = argError(arg) ?? notRunning(G.commit)
    if (bad) return bad
    return commit(false) ? ok('true') : failWith(commitFailure, 'the LMS did not accept the commit')
  }
  const lastErrorCall = () => String(code)
  const errorStringCall = (c: Arg) => errorString(version, str(c))
  const diagnosticCall = (c: Arg) => {
    const asked = str(c)
    if (asked === '' || asked === String(code)) return diagnostic
    return errorString(version, asked)
  }
  const kindCode = (kind: FailureKind) => codeFor(version, kind)
  const snapshot = (): DataModelState => ({ version, values: model.values() })

  const api: Api2004 | Api12 = is2004
    ? {
        version: '1.0',
        Initialize: initialize,
        Terminate: terminate,
        GetValue: getValue,
        SetValue: setValue,
        Commit: commitCall,
        GetLastError: lastErrorCall,
        GetErrorString: errorStringCall,
        GetDiagnostic: diagnosticCall,
      }
    : {
        LMSInitialize: initialize,
        LMSFinish: terminate,
        LMSGetValue: getValue,
        LMSSetValue: setValue,
        LMSCommit: commitCall,
        LMSGetLastError: lastErrorCall,
        LMSGetErrorString: errorStringCall,
        LMSGetDiagnostic: diagnosticCall,
      }

  return {
    api,
    version,
    phase: () => phase,
    state: snapshot,
    pendingDelta: () => log.pending(model),
    commitNow: (opts = {}) => send(opts.final === true) || undefined,
    changesSince: (seq) => log.since(model, seq),
    read: (element) => {
      const r = model.get(element)
      return r.ok ? r.value : undefined
    },
    lastError: () => ({ code, diagnostic }),
  }
}

function str(value: Arg): string {
  if (value === undefined || value === null) return ''
  return typeof value === 'string' ? value : String(value)
}
