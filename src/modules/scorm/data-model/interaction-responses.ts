/**
 * learner_response / correct_responses.n.pattern formats per interaction type.
 *
 * SCORM 2004 (RTE 4.2.9): records are separated by `[,]`, pairs by `[.]`, numeric ranges by `[:]`;
 * patterns may start with `{case_matters=…}` / `{order_matters=…}` delimiters, strings with
 * `{lang=…}`. SCORM 1.2 (CMIFeedback) is looser: only true-false and numeric have a real syntax.
 * SPMs (e.g. 36 choices) are minimums an LMS must store, so they are not enforced as maximums.
 */
import { type Failure, fail } from './errors.ts'
import { identifier, isReal, localizedString, short, splitLangPrefix } from './value-types.ts'

export const INTERACTION_TYPES_2004 = [
  'true-false',
  'choice',
  'fill-in',
  'long-fill-in',
  'likert',
  'matching',
  'performance',
  'sequencing',
  'numeric',
  'other',
] as const

export const INTERACTION_TYPES_12 = [
  'true-false',
  'choice',
  'fill-in',
  'matching',
  'performance',
  'sequencing',
  'likert',
  'numeric',
] as const

const bad = (what: string, value: string): Failure =>
  fail('type-mismatch', `"${short(value)}" is not a valid ${what}`)

/** Types whose interaction may hold only one correct response (2004 RTE table 4.2.9.1a). */
const SINGLE_PATTERN = new Set(['true-false', 'likert', 'numeric', 'other'])

export function maxCorrectResponses2004(type: string): number | undefined {
  return SINGLE_PATTERN.has(type) ? 1 : undefined
}

/** Two patterns that mean the same answer; choice patterns are sets. */
export function samePattern2004(type: string, a: string, b: string): boolean {
  if (type !== 'choice') return false // only choice forbids duplicates
  const sa = new Set(a === '' ? [] : a.split('[,]'))
  const sb = new Set(b === '' ? [] : b.split('[,]'))
  return sa.size === sb.size && [...sa].every((x) => sb.has(x))
}

export function checkLearnerResponse2004(type: string, value: string): Failure | undefined {
  const what = `${type} learner_response`
  switch (type) {
    case 'true-false':
      return value === 'true' || value === 'false' ? undefined : bad(what, value)
    case 'numeric':
      return isReal(value) ? undefined : bad(what, value)
    case 'other':
      return undefined
    case 'long-fill-in':
      return localizedString(value)
    case 'fill-in':
      return firstFailure(value.split('[,]'), localizedString)
    default:
      // An empty response (nothing answered yet) is accepted for the list-like types.
      if (value === '') return undefined
      return checkRecords2004(type, value, false) ? undefined : bad(what, value)
  }
}

export function checkPattern2004(type: string, value: string): Failure | undefined {
  const what = `${type} correct response pattern`
  switch (type) {
    case 'true-false':
      return value === 'true' || value === 'false' ? undefined : bad(what, value)
    case 'numeric':
      return isNumericRange(value) ? undefined : bad(what, value)
    case 'other':
      return undefined
    case 'choice':
      return value === '' || checkRecords2004(type, value, true) ? undefined : bad(what, value)
    case 'fill-in': {
      const rest = stripDelimiters(value, ['case_matters', 'order_matters'], false)
      if (rest === undefined) return bad(what, value)
      return firstFailure(rest.split('[,]'), localizedString)
    }
    case 'long-fill-in': {
      const rest = stripDelimiters(value, ['case_matters'], true)
      return rest === undefined ? bad(what, value) : undefined
    }
    case 'performance': {
      const rest = stripDelimiters(value, ['order_matters'], false)
      return rest !== undefined && checkRecords2004(type, rest, true) ? undefined : bad(what, value)
    }
    default:
      return checkRecords2004(type, value, true) ? undefined : bad(what, value)
  }
}

function checkRecords2004(type: string, value: string, isPattern: boolean): boolean {
  const records = value.split('[,]')
  switch (type) {
    case 'choice':
      return records.every(isId) && new Set(records).size === records.length
    case 'likert':
      return records.length === 1 && isId(value)
    case 'sequencing':
      return records.every(isId)
    case 'matching':
      return records.every((r) => {
        const pair = r.split('[.]')
        return pair.length === 2 && pair.every(isId)
      })
    case 'performance':
      return records.every((r) => {
        const [name = '', answer = '', ...extra] = r.split('[.]')
        if (extra.length > 0 || !r.includes('[.]') || (name === '' && answer === '')) return false
        if (name !== '' && !isId(name)) return false
        return !isPattern || !answer.includes('[:]') || isNumericRange(answer)
      })
    default:
      return false
  }
}

/**
 * Removes the leading `{name=true|false}` delimiters (each at most once, any order) and, when
 * `langToo`, one `{lang=…}`. Returns the remaining text, or undefined if a delimiter is invalid.
 */
function stripDelimiters(
  value: string,
  names: readonly string[],
  langToo: boolean,
): string | undefined {
  const seen = new Set<string>()
  let rest = value
  for (;;) {
    const m = /^\{(case_matters|order_matters)=([^}]*)\}/.exec(rest)
    if (m?.[1] && names.includes(m[1]) && !seen.has(m[1])) {
      if (m[2] !== 'true' && m[2] !== 'false') return undefined
      seen.add(m[1])
      rest = rest.slice(m[0].length)
      continue
    }
    const lang = langToo && !seen.has('lang') ? splitLangPrefix(rest) : undefined
    if (lang) {
      if (localizedString(rest)) return undefined
      seen.add('lang')
      rest = lang.text
      continue
    }
    return rest
  }
}

/** `min[:]max` with either bound optional and min <= max, or a single real number. */
function isNumericRange(value: string): boolean {
  const parts = value.split('[:]')
  if (parts.length === 1) return isReal(value)
  if (parts.length !== 2) return false
  const [min = '', max = ''] = parts
  if ((min !== '' && !isReal(min)) || (max !== '' && !isReal(max))) return false
  return min === '' || max === '' || Number(min) <= Number(max)
}

function isId(value: string): boolean {
  return identifier(value) === undefined
}

function firstFailure(values: string[], check: (v: string) => Failure | undefined) {
  for (const v of values) {
    const f = check(v)
    if (f) return f
  }
  return undefined
}

/** SCORM 1.2 student_response / pattern (CMIFeedback, at most 255 characters). */
export function checkFeedback12(type: string, value: string): Failure | undefined {
  if (value.length > 255) return fail('too-long', 'CMIFeedback is limited to 255 characters')
  if (type === 'true-false' && !/^(0|1|t|f|true|false)$/i.test(value)) {
    return bad('true-false response (0, 1, t, f)', value)
  }
  if (type === 'numeric' && value !== '' && !isReal(value)) return bad('numeric response', value)
  return undefined
}
