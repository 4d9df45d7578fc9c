import { useState } from 'preact/hooks'
import type { CreatedKey, KeyView } from '../../../http/customer/team.routes.ts'
import { api, type Mode } from '../api.client.ts'
import { useSession } from '../session.ts'
import {
  ActionButton,
  ActionForm,
  DataTable,
  day,
  Field,
  formValues,
  Loader,
  PageFrame,
  ShownOnce,
  useLoad,
  useStatus,
} from '../ui.tsx'
import { ChoiceSelect } from './filters.tsx'

/** API keys of both modes: create (the key shown once) and revoke; owners only. */
export function KeysPage() {
  const { isOwner, mode } = useSession()
  const keys = useLoad(
    () => (isOwner ? api.get<{ keys: KeyView[] }>('/api-keys') : Promise.resolve({ keys: [] })),
    [isOwner],
  )
  const status = useStatus()
  const [made, setMade] = useState<{ key: string; mode: Mode } | null>(null)
  if (!isOwner)
    return (
      <PageFrame title="API keys">
        <p>Only an owner can see and manage API keys.</p>
      </PageFrame>
    )
  return (
    <PageFrame title="API keys">
      <Loader loaded={keys}>
        {({ keys: list }) => (
          <DataTable
            caption="API keys, test and live"
            head={['Key', 'Mode', 'Created', 'Status', '']}
            keys={list.map((k) => k.id)}
            rows={list.map((k) => [
              <code>{k.hint}</code>,
              k.mode,
              day(k.created_at),
              k.revoked_at ? `revoked ${day(k.revoked_at)}` : 'active',
              k.revoked_at ? (
                ''
              ) : (
                <ActionButton
                  label="Revoke"
                  danger
                  name={`Revoke ${k.mode} key ${k.hint}`}
                  confirm={`Revoke the ${k.mode} key ${k.hint}? Programs using it stop working at once.`}
                  run={status.run}
                  onRun={async () => {
                    await api.delete(`/api-keys/${encodeURIComponent(k.id)}`)
                    keys.reload()
                    return <p>Key {k.hint} revoked.</p>
                  }}
                />
              ),
            ])}
          />
        )}
      </Loader>
      {status.node}
      <ActionForm
        title="Create a key"
        button="Create key"
        onSubmit={async (form) => {
          const wanted = formValues(form).mode === 'live' ? 'live' : 'test'
          const answer = await api.post<CreatedKey>('/api-keys', { mode: wanted })
          setMade(answer)
          keys.reload()
          return undefined
        }}
      >
        <Field label="Mode">
          <ChoiceSelect
            name="mode"
            initial={mode}
            options={[
              ['test', 'Test'],
              ['live', 'Live'],
            ]}
          />
        </Field>
        {made && (
          <ShownOnce
            label="New API key"
            value={made.key}
            note={`New ${made.mode} key: copy it now, it is not shown again.`}
          />
        )}
      </ActionForm>
    </PageFrame>
  )
}
