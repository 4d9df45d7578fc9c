import { useState } from 'preact/hooks'
import type {
  DeliveryList,
  RotatedSecret,
  WebhookDelivery,
  WebhookEnvelope,
} from '../../../http/routes/webhooks/webhook.schemas.ts'
import { api, query } from '../api.client.ts'
import { link, navigate } from '../router.ts'
import { useSession } from '../session.ts'
import {
  ActionButton,
  DataTable,
  Field,
  Loader,
  PageFrame,
  ShownOnce,
  useLoad,
  useStatus,
  when,
} from '../ui.tsx'

/** "#1 HTTP 500, #2 timeout": every attempt of the delivery, oldest first. */
function attemptsText(d: WebhookDelivery): string {
  if (!d.attempt_history.length) return 'none yet'
  return d.attempt_history
    .map(
      (a) =>
        `#${a.number} ${a.status_code === null ? (a.error ?? a.outcome) : `HTTP ${a.status_code}`}`,
    )
    .join(', ')
}

/** One endpoint: settings, test event, secret rotation, and delivery history with re-queue. */
export function WebhookDetailPage(props: { params: Record<string, string> }) {
  const { mode, canManage } = useSession()
  const id = props.params.id ?? ''
  const m = query({ mode })
  const path = `/webhooks/${encodeURIComponent(id)}`
  const [status, setStatus] = useState('')
  const endpoint = useLoad(() => api.get<WebhookEnvelope>(`${path}${m}`), [id, mode])
  const deliveries = useLoad(
    () =>
      api.get<DeliveryList>(
        `${path}/deliveries${query({ mode, limit: '50', status: status || undefined })}`,
      ),
    [id, mode, status],
  )
  const jobs = useStatus()
  const [secret, setSecret] = useState<string | null>(null)
  return (
    <Loader loaded={endpoint}>
      {({ webhook: w }) => (
        <PageFrame
          title={w.label ?? w.url}
          back={{ href: link('/webhooks'), label: 'All webhooks' }}
        >
          <dl class="facts">
            {(
              [
                ['URL', w.url],
                ['Events', w.eventScope],
                ['Status', w.status],
                ['Mode', w.mode],
                ['Secret rotated', when(w.secretRotatedAt)],
                ['Id', w.id],
              ] as const
            ).map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
          {canManage && (
            <div class="actions">
              <ActionButton
                label="Send test event"
                run={jobs.run}
                onRun={async () => {
                  await api.post(`${path}/test${m}`)
                  deliveries.reload()
                  return <p>Test event queued; it appears in the history below.</p>
                }}
              />
              <ActionButton
                label="Rotate secret"
                confirm="Rotate the signing secret? The old one keeps signing for 24 hours."
                run={jobs.run}
                onRun={async () => {
                  const made = await api.post<RotatedSecret>(`${path}/rotate-secret${m}`)
                  setSecret(made.secret)
                  endpoint.reload()
                  return undefined
                }}
              />
              <ActionButton
                label={w.status === 'active' ? 'Disable' : 'Enable'}
                run={jobs.run}
                onRun={async () => {
                  await api.patch(`${path}${m}`, {
                    status: w.status === 'active' ? 'disabled' : 'active',
                  })
                  endpoint.reload()
                  return undefined
                }}
              />
              <ActionButton
                label="Delete"
                danger
                confirm={`Delete ${w.url} and its delivery history?`}
                run={jobs.run}
                onRun={async () => {
                  await api.delete(`${path}${m}`)
                  navigate('/webhooks')
                  return undefined
                }}
              />
            </div>
          )}
          {jobs.node}
          {secret && (
            <ShownOnce
              label="New signing secret"
              value={secret}
              note="New secret: copy it now, it is not shown again. The old one also signs for 24 hours."
            />
          )}
          <h3>Delivery history</h3>
          <div class="filters">
            <Field label="Deliveries">
              <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
                <option value="">All</option>
                <option value="queued">Queued</option>
                <option value="delivered">Delivered</option>
                <option value="failed">Failed</option>
                <option value="dead_letter">Dead letters</option>
              </select>
            </Field>
            <button type="button" class="secondary" onClick={deliveries.reload}>
              Refresh
            </button>
          </div>
          <Loader loaded={deliveries}>
            {({ deliveries: list }) => (
              <DataTable
                caption="Deliveries, newest first"
                head={['Event', 'Status', 'Attempts', 'Attempt history', 'Created', '']}
                keys={list.map((d) => d.delivery_id)}
                rows={list.map((d) => [
                  d.event,
                  d.status === 'dead_letter' ? <strong>dead letter</strong> : d.status,
                  `${d.attempts} of ${d.max_attempts}`,
                  attemptsText(d),
                  when(d.created_at),
                  d.status === 'dead_letter' && canManage ? (
                    <ActionButton
                      label="Re-queue"
                      name={`Re-queue delivery ${d.delivery_id}`}
                      run={jobs.run}
                      onRun={async () => {
                        await api.post(
                          `/webhook-deliveries/${encodeURIComponent(d.delivery_id)}/requeue${m}`,
                        )
                        deliveries.reload()
                        return <p>Delivery re-queued: a fresh cycle of attempts starts now.</p>
                      }}
                    />
                  ) : (
                    ''
                  ),
                ])}
              />
            )}
          </Loader>
        </PageFrame>
      )}
    </Loader>
  )
}
