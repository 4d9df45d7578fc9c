import { useState } from 'preact/hooks'
import type { SessionList, SessionListItem } from '../../../http/routes/sessions/session.schemas.ts'
import { api, csvUrl, query } from '../api.client.ts'
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import { DataTable, day, duration, Field, Loader, PageFrame, percent, useLoad } from '../ui.tsx'
import { ChoiceSelect, dayStart, FilterForm } from './filters.tsx'

const FILTERS = ['package_id', 'learner_id', 'completion_status', 'success_status'] as const

/** Sessions of the mode with filters kept in the URL, paging, and CSV of the filtered list. */
export function SessionsPage(props: { params: Record<string, string> }) {
  const { mode } = useSession()
  const p = props.params
  const filter = {
    package_id: p.package_id,
    learner_id: p.learner_id,
    completion_status: p.completion_status,
    success_status: p.success_status,
    from: dayStart(p.from),
    to: dayStart(p.to),
  }
  const key = JSON.stringify(filter)
  const [more, setMore] = useState<{
    key: string
    rows: SessionListItem[]
    cursor: string | null
  }>()
  const first = useLoad(
    () => api.get<SessionList>(`/sessions${query({ mode, ...filter, limit: '50' })}`),
    [mode, key],
  )
  const extra = more?.key === key ? more : undefined
  const loadMore = (cursor: string) => {
    void api
      .get<SessionList>(`/sessions${query({ mode, ...filter, limit: '50', cursor })}`)
      .then((page) =>
        setMore({
          key,
          rows: [...(extra?.rows ?? []), ...page.sessions],
          cursor: page.next_cursor,
        }),
      )
  }
  return (
    <PageFrame title="Sessions">
      <FilterForm key={key} label="Filter sessions">
        {FILTERS.slice(0, 2).map((name) => (
          <Field key={name} label={name === 'package_id' ? 'Package id' : 'Learner id'}>
            <input name={name} type="text" defaultValue={p[name] ?? ''} />
          </Field>
        ))}
        <Field label="Completion">
          <ChoiceSelect
            name="completion_status"
            initial={p.completion_status ?? ''}
            options={[
              ['', 'Any'],
              ['completed', 'Completed'],
              ['incomplete', 'Incomplete'],
              ['not attempted', 'Not attempted'],
            ]}
          />
        </Field>
        <Field label="Success">
          <ChoiceSelect
            name="success_status"
            initial={p.success_status ?? ''}
            options={[
              ['', 'Any'],
              ['passed', 'Passed'],
              ['failed', 'Failed'],
              ['unknown', 'Unknown'],
            ]}
          />
        </Field>
        <Field label="Started on or after">
          <input name="from" type="date" defaultValue={p.from ?? ''} />
        </Field>
        <Field label="Started before">
          <input name="to" type="date" defaultValue={p.to ?? ''} />
        </Field>
      </FilterForm>
      <p>
        <a class="button-link" href={csvUrl('/sessions', { mode, ...filter })} download>
          Export CSV (all matching sessions)
        </a>
      </p>
      <Loader loaded={first}>
        {(page) => {
          const rows = [...page.sessions, ...(extra?.rows ?? [])]
          const cursor = extra ? extra.cursor : page.next_cursor
          return (
            <>
              <DataTable
                caption={`Sessions (${mode}), newest first`}
                head={['Learner', 'Package', 'Completion', 'Success', 'Score', 'Time', 'Started']}
                keys={rows.map((s) => s.session_id)}
                rows={rows.map((s) => [
                  <a href={link(`/sessions/${s.session_id}`)}>{s.learner_id}</a>,
                  <a href={link(`/packages/${s.package_id}`)}>
                    <code>{s.package_id}</code>
                  </a>,
                  s.completion_status,
                  s.success_status,
                  s.score.scaled === null ? '—' : percent(s.score.scaled),
                  duration(s.time_spent_seconds),
                  day(s.created_at),
                ])}
              />
              {cursor && (
                <button type="button" class="secondary" onClick={() => loadMore(cursor)}>
                  Show more
                </button>
              )}
            </>
          )
        }}
      </Loader>
    </PageFrame>
  )
}
