import { isoDurationSeconds, parseIsoDuration, parseTimespan } from '../scorm/data-model/index.ts'

/** Seconds in a SCO-reported time (ISO 8601 for 2004, CMITimespan for 1.2); 0 if unset. */
export function sessionSeconds(version: '1.2' | '2004', value: string | undefined): number {
  if (!value) return 0
  if (version === '2004') {
    const parsed = parseIsoDuration(value)
    return parsed ? isoDurationSeconds(parsed) : 0
  }
  const centis = parseTimespan(value)
  return centis === undefined ? 0 : centis / 100
}

/**
 * A SCO-reported time as the API's one duration format (`PT1H2M3.5S`), whatever the SCORM
 * version wrote (`PT13.78S`, `0000:00:13.00`); null when unset. The SCO's own value stays in
 * `cmi_data`.
 */
export function sessionTimeIso(
  version: '1.2' | '2004',
  value: string | null | undefined,
): string | null {
  if (!value) return null
  return isoFromSeconds(sessionSeconds(version, value))
}

/** Seconds as an ISO 8601 duration (`PT1H2M3.5S`): the API's one duration format. */
export function isoFromSeconds(total: number): string {
  const seconds = Math.max(0, Math.round(total * 100) / 100)
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = Math.round((seconds % 60) * 100) / 100
  return `PT${h}H${m}M${s}S`
}
