import { isoDurationSeconds, parseIsoDuration, parseTimespan } from '../scorm/data-model/index.ts'
import { isoFromSeconds } from './session.mapper.ts'

/** Seconds in a SCO-reported session time (ISO 8601 for 2004, CMITimespan for 1.2); 0 if unset. */
export function sessionSeconds(version: '1.2' | '2004', value: string | undefined): number {
  if (!value) return 0
  if (version === '2004') {
    const parsed = parseIsoDuration(value)
    return parsed ? isoDurationSeconds(parsed) : 0
  }
  const centis = parseTimespan(value)
  return centis === undefined ? 0 : centis / 100
}

/** The latest session time as the spec's ISO 8601 duration, whatever the SCORM version. */
export function sessionTimeIso(version: '1.2' | '2004', value: string | undefined): string | null {
  if (!value) return null
  return version === '2004' ? value : isoFromSeconds(sessionSeconds('1.2', value))
}
