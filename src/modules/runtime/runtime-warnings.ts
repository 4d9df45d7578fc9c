import type { DeltaError } from '../scorm/data-model/index.ts'

/** One SetValue the player's data model refused, as the commit body reports it. */
export interface RefusedValue {
  element: string
  value: string
  error_code: number
}

/** A package warning to count: what kind of refusal, where (indices as `N`), an example. */
export interface RuntimeWarning {
  code: string
  element: string
  example: string
  count: number
}

/** Refusals a commit may report; more are ignored (the warning is about kinds, not volume). */
export const MAX_REFUSED_PER_COMMIT = 100
/** Longest element name and example value kept. */
const MAX_ELEMENT = 255
const MAX_EXAMPLE = 200

const NAMES_2004: Readonly<Record<number, string>> = {
  201: 'invalid_argument',
  351: 'set_failure',
  401: 'undefined_element',
  402: 'unimplemented_element',
  404: 'read_only',
  406: 'type_mismatch',
  407: 'out_of_range',
  408: 'dependency_not_established',
}
const NAMES_12: Readonly<Record<number, string>> = {
  101: 'general_exception',
  201: 'invalid_argument',
  401: 'not_implemented',
  402: 'keyword',
  403: 'read_only',
  405: 'type_mismatch',
}

/** The warning code of a SCORM error code: its name, or `error_<n>`. */
export function warningCode(version: '1.2' | '2004', errorCode: number): string {
  return (version === '2004' ? NAMES_2004 : NAMES_12)[errorCode] ?? `error_${errorCode}`
}

/** `cmi.interactions.3.objectives.0.id` → `cmi.interactions.N.objectives.N.id`. */
export function elementPattern(element: string): string {
  return element.replace(/\.\d+(?=\.|$)/g, '.N').slice(0, MAX_ELEMENT)
}

/** The commit body's `refused` list, keeping only well-formed entries (bounded). */
export function parseRefused(body: unknown): RefusedValue[] {
  if (!Array.isArray(body)) return []
  const out: RefusedValue[] = []
  for (const entry of body.slice(0, MAX_REFUSED_PER_COMMIT)) {
    if (typeof entry !== 'object' || entry === null) continue
    const { element, value, error_code } = entry as Record<string, unknown>
    if (typeof element !== 'string' || element === '') continue
    if (!Number.isSafeInteger(error_code) || (error_code as number) <= 0) continue
    out.push({
      element,
      value: typeof value === 'string' ? value : String(value ?? ''),
      error_code: error_code as number,
    })
  }
  return out
}

/**
 * The warnings a commit produces: the refusals the player reports and the values the server's
 * own validation refused (`errors`, with the value taken from the delta). Counted per code and
 * element pattern; the latest value of each is its example.
 */
export function runtimeWarnings(
  version: '1.2' | '2004',
  refused: readonly RefusedValue[],
  errors: readonly DeltaError[],
  sent: Readonly<Record<string, unknown>>,
): RuntimeWarning[] {
  const byKey = new Map<string, RuntimeWarning>()
  const add = (element: string, code: string, value: string) => {
    const pattern = elementPattern(element)
    const key = `${code}\u0000${pattern}`
    const known = byKey.get(key)
    const example = value.slice(0, MAX_EXAMPLE)
    if (known) {
      known.count++
      known.example = example
    } else byKey.set(key, { code, element: pattern, example, count: 1 })
  }
  for (const r of refused) add(r.element, warningCode(version, r.error_code), r.value)
  for (const e of errors) {
    if (e.element === '') continue
    const code = e.kind === 'data-full' ? 'data_full' : warningCode(version, e.code)
    const value = sent[e.element]
    add(e.element, code, typeof value === 'string' ? value : '')
  }
  return [...byKey.values()]
}
