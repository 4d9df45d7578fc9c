/** What the dispatch pages share: the record as /api/customer/dispatches returns it, and links. */
import { type Mode, query } from '../api.client.ts'

export type DispatchStatus = 'active' | 'paused' | 'expired' | 'archived'

export interface Dispatch {
  id: string
  packageId: string
  name: string
  status: DispatchStatus
  licenseLimit: number | null
  expiresAt: string | null
  allowedDomains: string[]
  tags: string[]
  launchUrl: string
  counts: {
    uniqueLearners: number
    launches: number
    completions: number
    refusals: number
    separatedLearners: number
    rateLimited: number
  }
  wrapperGeneration: number
  createdAt: string
  updatedAt: string
  pausedAt: string | null
  archivedAt: string | null
}

export interface PackageSummary {
  id: string
  title: string
  status: 'active' | 'archived'
  content_type: 'scorm' | 'cmi5' | 'xapi'
  scorm_version: '1.2' | '2004' | null
}

/**
 * The wrapper zip's URL: a plain link, so the browser downloads it with the session cookie (a GET
 * needs no CSRF token). Default version: the package's.
 */
export function wrapperUrl(id: string, mode: Mode, scormVersion?: '1.2' | '2004'): string {
  return `/api/customer/dispatches/${encodeURIComponent(id)}/package${query({
    mode,
    scorm_version: scormVersion,
  })}`
}

/** "3 of 10" seats, or "3 (no limit)". */
export function seatsText(d: Dispatch): string {
  const used = d.counts.uniqueLearners
  return d.licenseLimit === null ? `${used} (no limit)` : `${used} of ${d.licenseLimit}`
}

export const STATUS_TEXT: Record<DispatchStatus, string> = {
  active: 'Active',
  paused: 'Paused',
  expired: 'Expired',
  archived: 'Archived',
}

/** The seats a dispatch uses against its licence limit, as a labelled meter and text. */
export function Seats(props: { dispatch: Dispatch }) {
  const d = props.dispatch
  const full = d.licenseLimit !== null && d.counts.uniqueLearners >= d.licenseLimit
  return (
    <span class="dsp-seats">
      {d.licenseLimit !== null && (
        <meter
          min={0}
          max={d.licenseLimit}
          value={d.counts.uniqueLearners}
          low={d.licenseLimit * 0.7}
          high={d.licenseLimit * 0.9}
          optimum={0}
          aria-label={`Seats used of ${d.name}`}
        />
      )}{' '}
      {seatsText(d)}
      {full && <strong> · full</strong>}
    </span>
  )
}
