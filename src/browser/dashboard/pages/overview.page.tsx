import { useMemo } from 'preact/hooks'
import type { OverviewResponse } from '../../../http/customer/customer.schemas.ts'
import type { ActivityResponse } from '../../../http/customer/overview.routes.ts'
import { api, query } from '../api.client.ts'
import { type ChartLine, DailyChart, PALETTE } from '../chart.tsx'
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import { DataTable, Loader, PageFrame, percent, useLoad, when } from '../ui.tsx'

function Figure(props: { label: string; value: number; href: string }) {
  return (
    <div>
      <dt>
        <a href={props.href}>{props.label}</a>
      </dt>
      <dd>{props.value}</dd>
    </div>
  )
}

/** Where an event's entity is shown in the dashboard, when it has a page. */
function entityLink(e: ActivityResponse['recent_events'][number]) {
  if (!e.entity_id) return '—'
  if (e.entity_type === 'package')
    return <a href={link(`/packages/${e.entity_id}`)}>{e.entity_id}</a>
  if (e.entity_type === 'session')
    return <a href={link(`/sessions/${e.entity_id}`)}>{e.entity_id}</a>
  return <code>{e.entity_id}</code>
}

/** Active learners against the plan's allotment, with the 70/90/100 % marks on the bar. */
function UsageBar(props: { usage: ActivityResponse['usage'] }) {
  const { usage } = props
  if (usage.allotment === null)
    return <p>{usage.active_learners} active learners this period (no plan allotment).</p>
  const share = usage.allotment ? usage.active_learners / usage.allotment : 0
  const reached = usage.thresholds.filter((t) => t.reached).map((t) => `${t.percent} %`)
  return (
    <div class="usage">
      <p>
        <strong>{usage.active_learners}</strong> of {usage.allotment} active learners in{' '}
        {usage.billing_period} ({percent(share)})
        {reached.length ? ` — thresholds reached: ${reached.join(', ')}` : ''}.
      </p>
      <div class="usage-bar" aria-hidden="true">
        <div
          class={share >= 1 ? 'usage-fill over' : share >= 0.9 ? 'usage-fill high' : 'usage-fill'}
          style={{ width: `${Math.min(100, share * 100)}%` }}
        />
        {usage.thresholds.map((t) => (
          <span
            key={t.percent}
            class={t.reached ? 'mark reached' : 'mark'}
            style={{ left: `${Math.min(100, t.percent)}%` }}
          >
            {t.percent} %
          </span>
        ))}
      </div>
      <ul class="thresholds">
        {usage.thresholds.map((t) => (
          <li key={t.percent}>
            {t.percent} % = {t.learners} learners: {t.reached ? 'reached' : 'not reached'}
          </li>
        ))}
      </ul>
    </div>
  )
}

function Charts(props: { activity: ActivityResponse }) {
  const { days, usage } = props.activity
  const dayList = useMemo(() => days.map((d) => d.day), [days])
  const traffic = useMemo(
    () => [
      { label: 'Launches', values: days.map((d) => d.launches), color: PALETTE.blue },
      {
        label: 'Completions',
        values: days.map((d) => d.completions),
        color: PALETTE.green,
        dash: true,
      },
    ],
    [days],
  )
  const learners = useMemo(() => {
    // The period's running total: the usage that counts against the allotment.
    let total = 0
    const cumulative = days.map((d) => {
      if (!d.day.startsWith(usage.billing_period)) return null
      total += d.new_active_learners
      return total
    })
    return [
      {
        label: 'Newly active',
        values: days.map((d) => d.new_active_learners),
        color: PALETTE.orange,
      },
      {
        label: `Active in ${usage.billing_period}`,
        values: cumulative,
        color: PALETTE.blue,
        dash: true,
      },
    ]
  }, [days, usage.billing_period])
  const lines = useMemo<ChartLine[]>(
    () => usage.thresholds.map((t) => ({ value: t.learners, label: `${t.percent} %` })),
    [usage.thresholds],
  )
  const nearest = usage.thresholds.find((t) => !t.reached)
  return (
    <div class="charts">
      <DailyChart title="Launches and completions per day" days={dayList} series={traffic} />
      <DailyChart
        title="Active learners per day"
        days={dayList}
        series={learners}
        lines={lines}
        minMax={nearest?.learners}
        summary={`Active learners per day: ${usage.active_learners} active in ${usage.billing_period}${usage.allotment === null ? '' : ` of ${usage.allotment} allotted`}`}
      />
    </div>
  )
}

/** The landing page: figures, usage against the allotment, charts of the last 30 days, events. */
export function OverviewPage() {
  const { mode } = useSession()
  const figures = useLoad(() => api.get<OverviewResponse>(`/overview${query({ mode })}`), [mode])
  const activity = useLoad(
    () => api.get<ActivityResponse>(`/overview/activity${query({ mode })}`),
    [mode],
  )
  return (
    <PageFrame title="Overview">
      <Loader loaded={figures}>
        {(o) => (
          <dl class="figures" aria-label={`Figures (${mode})`}>
            <Figure label="Packages" value={o.packages} href={link('/packages')} />
            <Figure
              label={`Active learners in ${o.billing_period}`}
              value={o.active_learners}
              href={link('/report')}
            />
            <Figure
              label="Sessions completed in the last 7 days"
              value={o.sessions_completed}
              href={link('/sessions', { completion_status: 'completed' })}
            />
            <Figure
              label="Failing webhook endpoints"
              value={o.failing_webhooks}
              href={link('/webhooks')}
            />
          </dl>
        )}
      </Loader>
      <Loader loaded={activity}>
        {(a) => (
          <>
            <h3>Usage this billing period</h3>
            <UsageBar usage={a.usage} />
            <h3>The last {a.days.length} days</h3>
            <Charts activity={a} />
            <h3>Recent events</h3>
            <DataTable
              caption={`Latest events (${mode})`}
              head={['When', 'Event', 'Subject']}
              keys={a.recent_events.map((e) => e.id)}
              rows={a.recent_events.map((e) => [
                when(e.occurred_at),
                e.severity === 'warn' ? <strong>{e.type} (warning)</strong> : e.type,
                entityLink(e),
              ])}
            />
          </>
        )}
      </Loader>
    </PageFrame>
  )
}
