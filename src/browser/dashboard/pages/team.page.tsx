import { useState } from 'preact/hooks'
import type {
  InviteResponse as Invite,
  PendingInvite,
  Role,
} from '../../../http/customer/customer.schemas.ts'
import type { TeamUser as User } from '../../../http/customer/team.routes.ts'
import { api } from '../api.client.ts'
import { link } from '../router.ts'
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
  when,
} from '../ui.tsx'

const ROLES: Role[] = ['viewer', 'admin', 'owner']

/**
 * Invite links nobody has used yet (admins see those for admins and viewers); Revoke makes a
 * link stop working. `version` changes after a new invite, to reload the list.
 */
function PendingInvites(props: { version: number }) {
  const invites = useLoad(() => api.get<{ invites: PendingInvite[] }>('/invites'), [props.version])
  const status = useStatus()
  return (
    <>
      <Loader loaded={invites}>
        {({ invites: list }) => (
          <DataTable
            caption="Pending invitations"
            head={['E-mail', 'Role', 'Created', 'Expires', '']}
            keys={list.map((i) => i.id)}
            empty="No pending invitations."
            rows={list.map((i) => [
              i.email,
              i.role,
              day(i.created_at),
              when(i.expires_at),
              <ActionButton
                key="revoke"
                label="Revoke"
                danger
                name={`Revoke the invitation of ${i.email}`}
                confirm={`Revoke the invitation of ${i.email}? Its link stops working.`}
                run={status.run}
                onRun={async () => {
                  await api.delete(`/invites/${encodeURIComponent(i.id)}`)
                  invites.reload()
                  return <p>The invitation of {i.email} is revoked.</p>
                }}
              />,
            ])}
          />
        )}
      </Loader>
      {status.node}
    </>
  )
}

/**
 * Owners and admins invite users by a one-time link (no e-mail is sent: the link is shown to
 * copy); only owners invite owners, as the API rules.
 */
function InviteForm(props: { onInvited: () => void; canInviteOwners: boolean }) {
  const [made, setMade] = useState<Invite | null>(null)
  return (
    <ActionForm
      title="Invite a user"
      button="Create invite link"
      onSubmit={async (form) => {
        const v = formValues(form)
        setMade(await api.post<Invite>('/invites', { email: v.email, role: v.role }))
        form.reset()
        props.onInvited()
        return undefined
      }}
    >
      <Field label="E-mail">
        <input name="email" type="email" required autocomplete="off" />
      </Field>
      <Field label="Role">
        <select name="role">
          <option value="viewer">Viewer (reads everything)</option>
          <option value="admin">Admin (manages packages and webhooks)</option>
          {props.canInviteOwners && (
            <option value="owner">Owner (also the team and API keys)</option>
          )}
        </select>
      </Field>
      {made && (
        <ShownOnce
          label={`One-time link for ${made.email}`}
          value={made.invite_url}
          note={`Send this one-time link to ${made.email} (${made.role}); it works until ${made.expires_at.slice(0, 16).replace('T', ' ')} UTC.`}
        />
      )}
    </ActionForm>
  )
}

/**
 * The tenant's users; owners change roles and remove users (never the last owner); admins and
 * owners invite, see pending invitations and revoke them.
 */
export function TeamPage() {
  const { isOwner, canManage, me } = useSession()
  const [invited, setInvited] = useState(0)
  const users = useLoad(() => api.get<{ users: User[] }>('/users'), [])
  const status = useStatus()
  const changeRole = (u: User, role: string) =>
    status.run(async () => {
      await api.patch(`/users/${encodeURIComponent(u.id)}`, { role })
      users.reload()
      return (
        <p>
          {u.email} is now {role}.
        </p>
      )
    })
  return (
    <PageFrame title="Team">
      <Loader loaded={users}>
        {({ users: list }) => (
          <DataTable
            caption="Dashboard users"
            head={['E-mail', 'Role', 'Since', '']}
            keys={list.map((u) => u.id)}
            rows={list.map((u) => [
              u.email,
              isOwner ? (
                <select
                  name="role"
                  aria-label={`Role of ${u.email}`}
                  value={u.role}
                  onChange={(e) => void changeRole(u, e.currentTarget.value)}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              ) : (
                u.role
              ),
              day(u.created_at),
              isOwner && u.id !== me.user.id ? (
                <ActionButton
                  label="Remove"
                  danger
                  name={`Remove ${u.email}`}
                  confirm={`Remove ${u.email}? They are signed out at once.`}
                  run={status.run}
                  onRun={async () => {
                    await api.delete(`/users/${encodeURIComponent(u.id)}`)
                    users.reload()
                    return <p>{u.email} removed.</p>
                  }}
                />
              ) : (
                ''
              ),
            ])}
          />
        )}
      </Loader>
      {status.node}
      <p>
        Owners manage the team and API keys; admins manage packages and webhooks; viewers read.{' '}
        {isOwner ? '' : 'Only an owner changes roles or removes users. '}Your password:{' '}
        <a href={link('/account')}>Account</a>.
      </p>
      {canManage && <PendingInvites version={invited} />}
      {canManage && (
        <InviteForm canInviteOwners={isOwner} onInvited={() => setInvited((n) => n + 1)} />
      )}
    </PageFrame>
  )
}
