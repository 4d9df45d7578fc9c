import type { SessionDetail } from '../../../http/routes/sessions/session.schemas.ts'
import { api, query } from '../api.client.ts'
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import { DataTable, duration, Loader, PageFrame, percent, useLoad, when } from '../ui.tsx'

type Score = SessionDetail['score']
/** One activity of the sequencing engine's tree (SCORM 2004 sessions). */
type Activity = NonNullable<SessionDetail['sequencing']>['activities'][number]

function scoreText(s: Score): string {
  if (s.scaled !== null) return percent(s.scaled)
  if (s.raw !== null) return `${s.raw}${s.max !== null ? ` of ${s.max}` : ''}`
  return '—'
}

/** element → value rows; several SCOs give item id → elements, flattened as `item: element`. */
function runtimeRows(data: Record<string, unknown>): [string, string][] {
  const rows: [string, string][] = []
  for (const [key, value] of Object.entries(data)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      for (const [el, v] of Object.entries(value as Record<string, unknown>))
        rows.push([`${key}: ${el}`, typeof v === 'string' ? v : JSON.stringify(v)])
    else rows.push([key, typeof value === 'string' ? value : JSON.stringify(value)])
  }
  return rows
}

/** The activity tree as nested lists (activities come in preorder with their parent's id). */
function ActivityTree(props: { activities: Activity[]; parent: string | null }) {
  const children = props.activities.filter((a) => a.parent === props.parent)
  if (!children.length) return null
  return (
    <ul class="tree">
      {children.map((a) => (
        <li key={a.id}>
          <span class="tree-title">{a.title}</span>{' '}
          <span class="tree-facts">
            {a.completion_status}, {a.success_status}
            {a.measure !== null ? `, measure ${a.measure}` : ''}, {a.attempts} attempt
            {a.attempts === 1 ? '' : 's'}
            {a.suspended ? ', suspended' : ''}
          </span>
          <ActivityTree activities={props.activities} parent={a.id} />
        </li>
      ))}
    </ul>
  )
}

/** One session: its status, each SCO, its runtime data and, for SCORM 2004, its activity tree. */
export function SessionDetailPage(props: { params: Record<string, string> }) {
  const { mode } = useSession()
  const id = props.params.id ?? ''
  const loaded = useLoad(
    () => api.get<SessionDetail>(`/sessions/${encodeURIComponent(id)}${query({ mode })}`),
    [id, mode],
  )
  return (
    <Loader loaded={loaded}>
      {(s) => (
        <PageFrame
          title={`Session of ${s.learner_name || s.learner_id}`}
          back={{ href: link('/sessions'), label: 'All sessions' }}
        >
          <dl class="facts">
            {(
              [
                ['Learner', s.learner_id],
                ['Package', s.package_id],
                ['Completion', s.completion_status],
                ['Success', s.success_status],
                ['Score', scoreText(s.score)],
                ['Progress', `${Math.round(s.progress_percent)} %`],
                ['Time', duration(s.time_spent_seconds)],
                ['Attempt', String(s.attempt)],
                ['Launches', String(s.launch_count)],
                ['Started', when(s.created_at)],
                ['Completed', when(s.completed_at)],
                ['Suspended', s.suspended ? 'yes' : 'no'],
                ['Dispatch', s.dispatch_id ?? '—'],
                ['Session id', s.session_id],
              ] as const
            ).map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
          <p>
            <a href={link(`/packages/${s.package_id}`)}>Open the package</a> ·{' '}
            <a href={link('/sessions', { learner_id: s.learner_id })}>
              Other sessions of this learner
            </a>
          </p>
          {s.sequencing && (
            <>
              <h3>Activity tree</h3>
              <ActivityTree activities={s.sequencing.activities} parent={null} />
              {s.sequencing.global_objectives.length > 0 && (
                <DataTable
                  caption={`Global objectives (${s.sequencing.objectives_global_to_system ? "the learner's across courses" : "this attempt's"})`}
                  head={['Objective', 'Success', 'Measure']}
                  keys={s.sequencing.global_objectives.map((g) => g.id)}
                  rows={s.sequencing.global_objectives.map((g) => [
                    g.id,
                    g.success_status,
                    g.measure === null ? '—' : String(g.measure),
                  ])}
                />
              )}
            </>
          )}
          <h3>Items</h3>
          <DataTable
            caption="Each SCO's status"
            head={['Item', 'Completion', 'Success', 'Score', 'Time']}
            keys={s.scos.map((x) => x.item_id)}
            rows={s.scos.map((x) => [
              x.item_id,
              x.completion_status,
              x.success_status,
              scoreText(x.score),
              x.total_time ?? '—',
            ])}
          />
          <h3>Runtime data</h3>
          <DataTable
            caption="What the course stored (data model element → value)"
            head={['Element', 'Value']}
            empty="The course stored nothing yet."
            rows={runtimeRows(s.cmi_data).map(([k, v]) => [<code>{k}</code>, v])}
          />
        </PageFrame>
      )}
    </Loader>
  )
}
