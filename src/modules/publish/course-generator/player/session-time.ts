/** Session time in both SCORM formats. Browser-safe: no node: imports. */

function parts(ms: number): { h: number; m: number; s: number; cs: number } {
  const total = Math.max(0, Math.round((Number.isFinite(ms) ? ms : 0) / 10))
  return {
    h: Math.floor(total / 360000),
    m: Math.floor(total / 6000) % 60,
    s: Math.floor(total / 100) % 60,
    cs: total % 100,
  }
}

const two = (n: number) => String(n).padStart(2, '0')

/** SCORM 2004 timeinterval (ISO 8601 duration): `PT1H2M3.45S`. */
export function isoDuration(ms: number): string {
  const { h, m, s, cs } = parts(ms)
  return `PT${h}H${m}M${s}.${two(cs)}S`
}

/** SCORM 1.2 CMITimespan `HHHH:MM:SS.SS` (hours capped at 9999, the format's maximum). */
export function cmiTimespan(ms: number): string {
  const p = parts(ms)
  if (p.h > 9999) return '9999:59:59.99'
  return `${two(p.h)}:${two(p.m)}:${two(p.s)}.${two(p.cs)}`
}
