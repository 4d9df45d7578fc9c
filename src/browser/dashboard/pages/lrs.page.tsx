/**
 * LRS credentials: the /xapi endpoint to configure in content and tools, the key/secret pairs of
 * the mode (the secret shown once, at creation), and revoking them. Creating and revoking are
 * for owners, as for API keys.
 */

import { useState } from 'preact/hooks'
import type { DashboardCredentialList } from '../../../http/customer/lrs-credentials.routes.ts'
import type { CreatedCredential, Credential } from '../../../http/routes/xapi/xapi.schemas.ts'
import { api, query } from '../api.client.ts'
import { useSession } from '../session.ts'
import {
  ActionButton,
  ActionForm,
  DataTable,
  Field,
  formValues,
  Loader,
  PageFrame,
  ShownOnce,
  useLoad,
  useStatus,
  when,
} from '../ui.tsx'

const SCOPES: Record<Credential['scope'], string> = {
  all: 'Read and write everything',
  'all/read': 'Read everything',
  'statements/read': 'Read statements only',
}

function CreateCredential(props: { created: () => void }) {
  const { mode } = useSession()
  return (
    <ActionForm
      title="New LRS credential"
      button="Create credential"
      class="card lrs-form"
      onSubmit={async (form) => {
        const v = formValues(form)
        const made = await api.post<CreatedCredential>(`/lrs-credentials${query({ mode })}`, {
          label: v.label || undefined,
          scope: v.scope,
          xapi_version: v.xapi_version,
        })
        form.reset()
        props.created()
        return (
          <>
            <ShownOnce
              label="Key (HTTP Basic user name)"
              value={made.credential.key}
              note={`Created “${made.credential.label}”. Configure the endpoint with this key…`}
            />
            <ShownOnce
              label="Secret (HTTP Basic password)"
              value={made.secret}
              note="…and this secret. It is shown only now: copy it before leaving the page."
            />
          </>
        )
      }}
    >
      <Field label="Label" hint="Shown in this list and as the statements' authority">
        <input name="label" maxLength={200} autocomplete="off" />
      </Field>
      <Field label="Scope">
        <select name="scope">
          {Object.entries(SCOPES).map(([value, text]) => (
            <option value={value} key={value}>
              {text}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="xAPI version"
        hint="Answers requests that name no version; 1.0.3 for older content"
      >
        <select name="xapi_version">
          <option value="2.0.0">2.0.0</option>
          <option value="1.0.3">1.0.3</option>
        </select>
      </Field>
    </ActionForm>
  )
}

function Credentials(props: { credentials: Credential[]; changed: () => void }) {
  const { mode, isOwner } = useSession()
  const status = useStatus()
  return (
    <>
      <DataTable
        caption={`LRS credentials (${mode} mode), newest first`}
        head={['Label', 'Key', 'Scope', 'xAPI', 'Created', 'Status', '']}
        keys={props.credentials.map((c) => c.id)}
        empty="No LRS credential yet."
        rows={props.credentials.map((c) => [
          c.label,
          <code key="k">{c.key}</code>,
          SCOPES[c.scope],
          c.xapi_version,
          when(c.created_at),
          c.revoked_at ? `Revoked ${when(c.revoked_at)}` : 'Active',
          isOwner && !c.revoked_at ? (
            <ActionButton
              key="r"
              label="Revoke"
              danger
              name={`Revoke ${c.label}`}
              run={status.run}
              confirm={`Revoke “${c.label}”? Content using it stops recording at once.`}
              onRun={async () => {
                await api.delete(`/lrs-credentials/${c.id}${query({ mode })}`)
                props.changed()
                return <p>Revoked “{c.label}”.</p>
              }}
            />
          ) : (
            ''
          ),
        ])}
      />
      {status.node}
    </>
  )
}

function Endpoint(props: { url: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <div class="card lrs-endpoint">
      <Field label="xAPI endpoint" hint="Use it with a key and secret below (HTTP Basic)">
        <input
          readOnly
          value={props.url}
          class="secret"
          onFocus={(e) => e.currentTarget.select()}
        />
      </Field>
      <button
        type="button"
        class="small"
        onClick={() => {
          void navigator.clipboard?.writeText(props.url).then(() => setCopied(true))
        }}
      >
        {copied ? 'Copied' : 'Copy endpoint'}
      </button>
    </div>
  )
}

export function LrsPage(_props: { params: Record<string, string> }) {
  const { mode, isOwner } = useSession()
  const loaded = useLoad(
    () => api.get<DashboardCredentialList>(`/lrs-credentials${query({ mode, limit: '200' })}`),
    [mode],
  )
  return (
    <PageFrame title="LRS credentials">
      <p>
        Courseport’s built-in learning record store takes xAPI statements from content and tools.
        Each credential is a key and secret for one use; revoke it when that use ends.
      </p>
      <Loader loaded={loaded}>
        {(data) => (
          <>
            <Endpoint url={data.endpoint} />
            {isOwner ? (
              <CreateCredential created={loaded.reload} />
            ) : (
              <p>Only an owner can create or revoke credentials.</p>
            )}
            <Credentials credentials={data.credentials} changed={loaded.reload} />
          </>
        )}
      </Loader>
    </PageFrame>
  )
}
