/** What the dispatch pages share: seats, status words and the wrapper link. */
import type { Dispatch } from '../../../http/routes/dispatches/dispatch.schemas.ts'
import { type Mode, query } from '../api.client.ts'

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

export const STATUS_TEXT: Record<Dispatch['status'], string> = {
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
