import type { ReportResponse, ReportRow } from '../../../http/customer/customer.schemas.ts'
import { api, csvUrl, query } from '../api.client.ts'
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import { DataTable, duration, Field, Loader, PageFrame, percent, useLoad } from '../ui.tsx'
import { dayStart, FilterForm } from './filters.tsx'

/** Horizontal bars of a 0–1 rate per package (the table below has the exact figures). */
function RateBars(props: {
  title: string
  rows: ReportRow[]
  pick: (r: ReportRow) => number | null
}) {
  return (
    <figure class="bars">
      <figcaption>{props.title}</figcaption>
      <ul>
        {props.rows.map((r) => {
          const v = props.pick(r)
          return (
            <li key={r.package_id}>
              <span class="bar-label">{r.package_title ?? r.package_id}</span>
              <span class="bar-track" aria-hidden="true">
                <span class="bar-fill" style={{ width: `${Math.max(0, (v ?? 0) * 100)}%` }} />
              </span>
              <span class="bar-value">{percent(v)}</span>
            </li>
          )
        })}
      </ul>
    </figure>
  )
}

/** Learner progress per package over a date range: charts, the table, and CSV of the same. */
export function ReportPage(props: { params: Record<string, string> }) {
  const { mode } = useSession()
  const p = props.params
  const filter = { package_id: p.package_id, from: dayStart(p.from), to: dayStart(p.to) }
  const loaded = useLoad(
    () => api.get<ReportResponse>(`/reports/learner-progress${query({ mode, ...filter })}`),
    [mode, JSON.stringify(filter)],
  )
  return (
    <PageFrame title="Learner progress">
      <FilterForm key={JSON.stringify(filter)} label="Report range">
        <Field label="Package id">
          <input name="package_id" type="text" defaultValue={p.package_id ?? ''} />
        </Field>
        <Field label="From (started on or after)">
          <input name="from" type="date" defaultValue={p.from ?? ''} />
        </Field>
        <Field label="To (started before)">
          <input name="to" type="date" defaultValue={p.to ?? ''} />
        </Field>
      </FilterForm>
      <p>
        <a
          class="button-link"
          href={csvUrl('/reports/learner-progress', { mode, ...filter })}
          download
        >
          Export CSV
        </a>
      </p>
      <Loader loaded={loaded}>
        {({ packages }) => (
          <>
            {packages.length > 0 && (
              <div class="charts">
                <RateBars title="Completion rate" rows={packages} pick={(r) => r.completion_rate} />
                <RateBars title="Pass rate" rows={packages} pick={(r) => r.pass_rate} />
              </div>
            )}
            <DataTable
              caption={`Learner progress per package (${mode})`}
              head={[
                'Package',
                'Learners',
                'Attempts',
                'Completed',
                'Passed',
                'Avg score',
                'Avg time',
                'Median time',
              ]}
              keys={packages.map((r) => r.package_id)}
              rows={packages.map((r) => [
                <a href={link('/sessions', { package_id: r.package_id })}>
                  {r.package_title ?? r.package_id}
                </a>,
                String(r.learners),
                String(r.attempts),
                percent(r.completion_rate),
                percent(r.pass_rate),
                r.average_score === null ? '—' : percent(r.average_score),
                duration(r.average_time_seconds),
                duration(r.median_time_seconds),
              ])}
            />
          </>
        )}
      </Loader>
    </PageFrame>
  )
}
