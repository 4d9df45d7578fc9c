/**
 * The conformance suite's type-aware equality for `adlCheck: typed` steps (see the fixture README):
 * reals to 6 decimals, durations by length, timestamps without fractions, language codes by first
 * subtag, delimiters against their defaults, and interaction patterns by meaning.
 */
import {
  isoDurationSeconds,
  parseIsoDuration,
} from '../../../../src/modules/scorm/data-model/durations.ts'
import { isTimestamp } from '../../../../src/modules/scorm/data-model/value-types.ts'

const REAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/

export function typedEqual(
  actual: string,
  expected: string,
  element: string,
  interactionType?: string,
) {
  if (actual === expected) return true
  if (REAL.test(actual) && REAL.test(expected)) {
    return Math.trunc(Number(actual) * 1e6) === Math.trunc(Number(expected) * 1e6)
  }
  const da = parseIsoDuration(actual)
  const de = parseIsoDuration(expected)
  if (da && de) return Math.abs(isoDurationSeconds(da) - isoDurationSeconds(de)) < 0.01
  if (isTimestamp(actual) && isTimestamp(expected)) {
    return withoutFraction(actual) === withoutFraction(expected)
  }
  if (element.endsWith('learner_preference.language')) {
    return firstSubtag(actual) === firstSubtag(expected)
  }
  if (
    /\.(correct_responses\.\d+\.pattern|learner_response)$/.test(element) ||
    element.endsWith('.comment') ||
    element.endsWith('.description')
  ) {
    return samePattern(actual, expected, interactionType ?? '')
  }
  return false
}

function withoutFraction(t: string) {
  return t.replace(/\.\d+/, '')
}

function firstSubtag(lang: string) {
  return (lang.split('-')[0] ?? '').toLowerCase()
}

interface Parsed {
  caseMatters: boolean
  orderMatters: boolean
  records: Array<{ lang: string; text: string }>
}

/** Leading delimiters (any order, defaults applied) then `[,]` records with optional {lang=}. */
function parse(value: string, type: string): Parsed {
  let rest = value
  let caseMatters = false
  let orderMatters = true
  let lang = 'en'
  for (;;) {
    const m = /^\{(case_matters|order_matters|lang)=([^}]*)\}/.exec(rest)
    if (!m) break
    if (m[1] === 'lang' && type !== 'long-fill-in') break
    if (m[1] === 'case_matters') caseMatters = m[2] === 'true'
    else if (m[1] === 'order_matters') orderMatters = m[2] === 'true'
    else lang = m[2] ?? 'en'
    rest = rest.slice(m[0].length)
  }
  const split = type === 'long-fill-in' || type === '' ? [rest] : rest.split('[,]')
  const records = split.map((r) => {
    const m = /^\{lang=([^}]*)\}/.exec(r)
    return m ? { lang: m[1] ?? 'en', text: r.slice(m[0].length) } : { lang, text: r }
  })
  return { caseMatters, orderMatters, records }
}

function samePattern(actual: string, expected: string, type: string): boolean {
  const a = parse(actual, type)
  const e = parse(expected, type)
  if (a.caseMatters !== e.caseMatters || a.orderMatters !== e.orderMatters) return false
  const key = (r: { lang: string; text: string }) => `${firstSubtag(r.lang)}\u0000${r.text}`
  const ka = a.records.map(key)
  const ke = e.records.map(key)
  if (type === 'choice' || !a.orderMatters)
    return ka.length === ke.length && [...ka].sort().join() === [...ke].sort().join()
  return ka.length === ke.length && ka.every((k, i) => k === ke[i])
}
