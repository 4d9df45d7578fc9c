import { useState } from 'preact/hooks'
import type { RotatedSecret, WebhookList } from '../../../http/routes/webhooks/webhook.schemas.ts'
import { api, type Mode, query } from '../api.client.ts'
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import {
  ActionForm,
  DataTable,
  Field,
  formValues,
  Loader,
  PageFrame,
  ShownOnce,
  useLoad,
  when,
} from '../ui.tsx'
import { ChoiceSelect } from './filters.tsx'

export const SCOPES = ['all', 'packages', 'sessions', 'usage', 'dispatches', 'competency']

function CreateForm(props: { onCreated: () => void }) {
  const { mode } = useSession()
  const [made, setMade] = useState<{ id: string; secret: string; mode: Mode } | null>(null)
  return (
    <ActionForm
      title="Register an endpoint"
      button="Add endpoint"
      onSubmit={async (form) => {
        const v = formValues(form)
        const target: Mode = v.mode === 'live' ? 'live' : 'test'
        const answer = await api.post<RotatedSecret>(`/webhooks${query({ mode: target })}`, {
          url: v.url,
          label: v.label || undefined,
          eventScope: v.eventScope,
        })
        form.reset()
        setMade({ id: answer.webhook.id, secret: answer.secret, mode: target })
        props.onCreated()
        return undefined
      }}
    >
      <Field label="HTTPS URL">
        <input name="url" type="url" required placeholder="https://" />
      </Field>
      <Field label="Label">
        <input name="label" type="text" maxLength={200} />
      </Field>
      <Field label="Events">
        <select name="eventScope">
          {SCOPES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Data of">
        <ChoiceSelect
          name="mode"
          initial={mode}
          options={[
            ['test', 'Test mode'],
            ['live', 'Live mode'],
          ]}
        />
      </Field>
      {made && (
        <div>
          <ShownOnce
            label="Signing secret"
            value={made.secret}
            note="Endpoint added. Copy its signing secret now: it is not shown again."
          />
          {made.mode === mode ? (
            <p>
              <a href={link(`/webhooks/${made.id}`)}>Open the endpoint</a>
            </p>
          ) : (
            <p>It receives {made.mode} events; switch the mode to see it.</p>
          )}
        </div>
      )}
    </ActionForm>
  )
}

/** The endpoints of the mode and, for admins and owners, the form that registers one. */
export function WebhooksPage() {
  const { mode, canManage } = useSession()
  const list = useLoad(
    () => api.get<WebhookList>(`/webhooks${query({ mode, limit: '100' })}`),
    [mode],
  )
  return (
    <PageFrame title="Webhooks">
      <Loader loaded={list}>
        {({ webhooks }) => (
          <DataTable
            caption={`Webhook endpoints (${mode})`}
            head={['Endpoint', 'URL', 'Events', 'Status', 'Created']}
            keys={webhooks.map((w) => w.id)}
            rows={webhooks.map((w) => [
              <a href={link(`/webhooks/${w.id}`)}>{w.label ?? w.url}</a>,
              w.url,
              w.eventScope,
              w.status,
              when(w.createdAt),
            ])}
          />
        )}
      </Loader>
      {canManage && <CreateForm onCreated={list.reload} />}
    </PageFrame>
  )
}
