/**
 * Time spans of both versions: SCORM 2004 `timeinterval (second,10,2)` (ISO 8601 durations such as
 * `PT1H30M5.25S`) and SCORM 1.2 `CMITimespan` (`HHHH:MM:SS.SS`). Sums are kept exact: 2004 years,
 * months and days are added component by component, because a month has no fixed length; only
 * seconds carry into minutes and minutes into hours.
 */

export interface IsoDuration {
  readonly years: number
  readonly months: number
  readonly days: number
  readonly hours: number
  readonly minutes: number
  /** Seconds in hundredths, the precision SCORM defines. */
  readonly centiseconds: number
}

const ISO_DURATION =
  /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/

export function parseIsoDuration(value: string): IsoDuration | undefined {
  const m = ISO_DURATION.exec(value)
  if (!m) return undefined
  const [, y, mo, d, h, mi, s] = m
  if (y === undefined && mo === undefined && d === undefined && !value.includes('T')) {
    return undefined // a bare "P"
  }
  if (value.includes('T') && h === undefined && mi === undefined && s === undefined) {
    return undefined // "P1DT": a time designator needs a time component
  }
  return {
    years: toInt(y),
    months: toInt(mo),
    days: toInt(d),
    hours: toInt(h),
    minutes: toInt(mi),
    centiseconds: s === undefined ? 0 : Math.round(Number(s) * 100),
  }
}

export function isIsoDuration(value: string): boolean {
  return parseIsoDuration(value) !== undefined
}

export const ZERO_ISO_DURATION = 'PT0H0M0S'

export function addIsoDurations(a: IsoDuration, b: IsoDuration): IsoDuration {
  let centiseconds = a.centiseconds + b.centiseconds
  let minutes = a.minutes + b.minutes + Math.floor(centiseconds / 6000)
  centiseconds %= 6000
  const hours = a.hours + b.hours + Math.floor(minutes / 60)
  minutes %= 60
  return {
    years: a.years + b.years,
    months: a.months + b.months,
    days: a.days + b.days,
    hours,
    minutes,
    centiseconds,
  }
}

export function formatIsoDuration(d: IsoDuration): string {
  let date = ''
  if (d.years) date += `${d.years}Y`
  if (d.months) date += `${d.months}M`
  if (d.days) date += `${d.days}D`
  let time = ''
  if (d.hours) time += `${d.hours}H`
  if (d.minutes) time += `${d.minutes}M`
  if (d.centiseconds) time += `${formatSeconds(d.centiseconds)}S`
  if (!date && !time) return ZERO_ISO_DURATION
  return `P${date}${time ? `T${time}` : ''}`
}

/** Approximate length in seconds (a year is 365 days, a month 30), for limits such as max_time_allowed. */
export function isoDurationSeconds(d: IsoDuration): number {
  const days = d.years * 365 + d.months * 30 + d.days
  return days * 86400 + d.hours * 3600 + d.minutes * 60 + d.centiseconds / 100
}

/** Sums two 2004 durations given as strings; an unparsable operand counts as zero. */
export function sumIsoDurations(a: string, b: string): string {
  const zero = parseIsoDuration(ZERO_ISO_DURATION) as IsoDuration
  return formatIsoDuration(
    addIsoDurations(parseIsoDuration(a) ?? zero, parseIsoDuration(b) ?? zero),
  )
}

// SCORM 1.2 CMITimespan: hours 2 to 4 digits, minutes and seconds 00-59, up to 2 decimals.
const TIMESPAN = /^(\d{2,4}):([0-5]\d):([0-5]\d)(?:\.(\d{1,2}))?$/

export function parseTimespan(value: string): number | undefined {
  const m = TIMESPAN.exec(value)
  if (!m) return undefined
  const [, h, mi, s, frac] = m
  const centis = frac === undefined ? 0 : Number(frac.padEnd(2, '0'))
  return ((toInt(h) * 60 + toInt(mi)) * 60 + toInt(s)) * 100 + centis
}

export const ZERO_TIMESPAN = '0000:00:00.00'
const MAX_TIMESPAN_CENTIS = ((9999 * 60 + 59) * 60 + 59) * 100 + 99

/** Formats hundredths of a second as HHHH:MM:SS.SS, clamped to the largest value the type allows. */
export function formatTimespan(centiseconds: number): string {
  const total = Math.min(Math.max(0, Math.round(centiseconds)), MAX_TIMESPAN_CENTIS)
  const centis = total % 100
  const seconds = Math.floor(total / 100) % 60
  const minutes = Math.floor(total / 6000) % 60
  const hours = Math.floor(total / 360000)
  return `${pad(hours, 4)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(centis, 2)}`
}

/** Sums two 1.2 timespans given as strings; an unparsable operand counts as zero. */
export function sumTimespans(a: string, b: string): string {
  return formatTimespan((parseTimespan(a) ?? 0) + (parseTimespan(b) ?? 0))
}

function formatSeconds(centiseconds: number): string {
  const whole = Math.floor(centiseconds / 100)
  const frac = centiseconds % 100
  if (frac === 0) return String(whole)
  return `${whole}.${pad(frac, 2).replace(/0$/, '')}`
}

function toInt(s: string | undefined): number {
  return s === undefined ? 0 : Number.parseInt(s, 10)
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}
