/**
 * Server-side re-validation of a commit. The server is the authority: it replays the client's
 * delta through the same engine the player used, on top of the state it already holds, keeps what
 * passes, reports what does not, and silently ignores read-only elements (the LMS supplies those).
 */
import { createDataModel, resolve } from './data-model.ts'
import { splitElement } from './element-path.ts'
import type { ScormVersion } from './element-spec.ts'
import { codeFor, type FailureKind } from './errors.ts'
import { type DataModelOptions, initialValues, type LaunchData, modelEnv } from './launch-data.ts'
import type { ModelBase, ModelWrites } from './model-base.ts'
import type { DataModelState } from './runtime.ts'

export interface DeltaError {
  /** The element as sent ('' for problems with the delta itself). */
  readonly element: string
  /** The code SetValue would have returned for this version. */
  readonly code: number
  readonly message: string
  /** Why, independent of the version's numbering ('data-full' when the attempt's data is full). */
  readonly kind?: FailureKind
}

export interface DeltaValidation {
  readonly seq: number | undefined
  readonly fromSeq: number | undefined
  readonly final: boolean
  /** Canonical element name → value now stored. */
  readonly accepted: Record<string, string>
  readonly errors: DeltaError[]
  /** Read-only or keyword elements in the delta; never applied. */
  readonly ignored: string[]
  /**
   * State after applying `accepted` to the previous state; over a `base`, its values are a
   * read-only view of the base with `writes`.
   */
  readonly state: DataModelState
  /** Characters `state` holds: element names plus values (what `maxTotalChars` limits). */
  readonly chars: number
  /** What the delta changed in the model: over a `base`, what `ModelBase.advance` takes. */
  readonly writes: ModelWrites
}

export interface ValidateDeltaContext {
  /** The LaunchData the session was started with (permissions, thresholds, learner…). */
  readonly initial: LaunchData
  /** State before this delta; default: the launch's initial state. */
  readonly state?: DataModelState
  /**
   * Instead of `state`: the state before this delta kept from the previous commit (model-base.ts).
   * It is left as it was; the result's `writes` are what to fold into it once stored.
   */
  readonly base?: ModelBase
  readonly options?: DataModelOptions
}

/** Largest number of elements accepted in one delta. */
export const MAX_DELTA_ENTRIES = 20000
/** Replay passes; later passes retry elements whose dependency came later in the delta. */
const MAX_PASSES = 6

export function validateDelta(
  version: ScormVersion,
  delta: unknown,
  context: ValidateDeltaContext,
): DeltaValidation {
  const errors: DeltaError[] = []
  const ignored: string[] = []
  const accepted: Record<string, string> = {}
  const previous =
    context.base ??
    (context.state?.version === version
      ? context.state.values
      : initialValues(version, context.initial))
  const model = createDataModel(modelEnv(version, context.initial, context.options), previous)
  const code = (kind: FailureKind) => codeFor(version, kind)
  const generalError = version === '2004' ? 201 : 101

  const { body, seq, fromSeq, values } = readEnvelope(delta, generalError, errors)

  const queue: Array<[string, string]> = []
  const entries = Object.entries(values ?? {})
  if (entries.length > MAX_DELTA_ENTRIES) {
    errors.push({
      element: '',
      code: generalError,
      message: `more than ${MAX_DELTA_ENTRIES} values`,
    })
  }
  for (const [element, value] of entries.slice(0, MAX_DELTA_ENTRIES)) {
    const r = resolve(version, element)
    if (r.kind === 'keyword' || (r.kind === 'leaf' && r.spec.access === 'ro')) ignored.push(element)
    else if (r.kind === 'error') {
      errors.push({
        element,
        code: code(r.failure.kind),
        message: r.failure.diagnostic,
        kind: r.failure.kind,
      })
    } else if (typeof value !== 'string') {
      errors.push({ element, code: code('type-mismatch'), message: 'values must be strings' })
    } else queue.push([element, value])
  }
  queue.sort(([a], [b]) => compareElements(a, b))

  let pending = queue
  let failures = new Map<string, { kind: FailureKind; diagnostic: string }>()
  for (let pass = 0; pass < MAX_PASSES && pending.length > 0; pass++) {
    const retry: Array<[string, string]> = []
    failures = new Map()
    for (const [element, value] of pending) {
      const r = model.set(element, value)
      if (r.ok) accepted[r.path] = value
      else if (r.failure.kind === 'read-only' || r.failure.kind === 'keyword') ignored.push(element)
      else {
        retry.push([element, value])
        failures.set(element, r.failure)
      }
    }
    if (retry.length === pending.length) break // no progress: the rest fail for good
    pending = retry
  }
  for (const [element] of pending) {
    const f = failures.get(element)
    if (f) errors.push({ element, code: code(f.kind), message: f.diagnostic, kind: f.kind })
  }

  return {
    seq,
    fromSeq,
    final: body?.final === true,
    accepted,
    errors,
    ignored,
    state: { version, values: model.values() },
    chars: model.size(),
    writes: model.writes(),
  }
}

/** The delta's envelope (seq, fromSeq, values); what is malformed is added to `errors`. */
function readEnvelope(delta: unknown, generalError: number, errors: DeltaError[]) {
  const body = isRecord(delta) ? delta : undefined
  const seq = sequenceNumber(body?.seq)
  const fromSeq = sequenceNumber(body?.fromSeq) ?? (seq === undefined ? undefined : seq - 1)
  if (!body) errors.push({ element: '', code: generalError, message: 'a delta must be an object' })
  else if (seq === undefined) {
    errors.push({ element: '', code: generalError, message: 'seq must be a non-negative integer' })
  }
  const values = isRecord(body?.values) ? body.values : undefined
  if (body && !values)
    errors.push({ element: '', code: generalError, message: 'values must be an object' })
  return { body, seq, fromSeq, values }
}

/**
 * Where a delta fits after the last one the server applied: 'apply' when it continues the chain
 * (possibly overlapping it), 'duplicate' when already applied, 'gap' when commits are missing.
 */
export function deltaPosition(
  lastAppliedSeq: number,
  delta: { seq: number; fromSeq: number },
): 'apply' | 'duplicate' | 'gap' {
  if (delta.seq <= lastAppliedSeq) return 'duplicate'
  return delta.fromSeq <= lastAppliedSeq ? 'apply' : 'gap'
}

/** Array items in index order, and within an item `id` then `type` first (they create/shape it). */
export function compareElements(a: string, b: string): number {
  const sa = splitElement(a)
  const sb = splitElement(b)
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const x = sa[i] ?? ''
    const y = sb[i] ?? ''
    if (x === y) continue
    const nx = /^\d+$/.test(x) ? Number(x) : Number.NaN
    const ny = /^\d+$/.test(y) ? Number(y) : Number.NaN
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) return nx - ny
    const rank = (s: string) => (s === 'id' ? 0 : s === 'type' ? 1 : 2)
    return rank(x) - rank(y) || (x < y ? -1 : 1)
  }
  return sa.length - sb.length
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function sequenceNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined
}
