import { actionForm } from './account.page.ts'
import { actionButton, type PageContext, shownOnce, statusRegion } from './actions.ts'
import { api } from './api.client.ts'
import { field, h, table } from './dom.ts'

interface User {
  id: string
  email: string
  role: 'owner' | 'admin' | 'viewer'
  created_at: string
}
interface Key {
  id: string
  mode: 'test' | 'live'
  hint: string
  created_at: string
  revoked_at: string | null
}

const ROLES = ['viewer', 'admin', 'owner'] as const
const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '—')

/** The tenant's users; owners change roles and remove users here (never the last owner). */
export async function teamPage(ctx: PageContext): Promise<HTMLElement> {
  const { users } = await api.get<{ users: User[] }>('/users')
  const owner = ctx.me.user.role === 'owner'
  const status = statusRegion()
  const rows = users.map((u) => {
    if (!owner) return [u.email, u.role, day(u.created_at), '']
    const select = h(
      'select',
      { name: 'role', 'aria-label': `Role of ${u.email}` },
      ...ROLES.map((r) => h('option', { value: r, selected: r === u.role }, r)),
    ) as HTMLSelectElement
    select.addEventListener('change', () => {
      status.replaceChildren()
      api.patch(`/users/${encodeURIComponent(u.id)}`, { role: select.value }).then(
        () => status.replaceChildren(h('p', {}, `${u.email} is now ${select.value}.`)),
        (err: unknown) => {
          select.value = u.role
          status.replaceChildren(h('p', { class: 'error' }, String((err as Error).message)))
        },
      )
    })
    const remove = actionButton(
      'Remove',
      status,
      async () => {
        await api.delete(`/users/${encodeURIComponent(u.id)}`)
        ctx.refresh()
        return undefined
      },
      {
        danger: true,
        name: `Remove ${u.email}`,
        confirm: `Remove ${u.email}? They are signed out at once.`,
      },
    )
    return [u.email, h('label', { class: 'inline' }, select), day(u.created_at), remove]
  })
  return h(
    'section',
    { 'aria-labelledby': 'page-title', class: 'manage' },
    h('h2', { id: 'page-title' }, 'Team'),
    table('Dashboard users', ['E-mail', 'Role', 'Since', ''], rows),
    status,
    h(
      'p',
      {},
      owner
        ? 'Owners manage users and API keys; admins manage packages and webhooks; viewers read. Invite a user from '
        : 'Only an owner can change the team. Your account: ',
      h('a', { href: '#account' }, 'Account'),
      '.',
    ),
  )
}

/** API keys of both modes; owners only (the server refuses everyone else). */
export async function keysPage(ctx: PageContext): Promise<HTMLElement> {
  if (ctx.me.user.role !== 'owner')
    return h(
      'section',
      { 'aria-labelledby': 'page-title' },
      h('h2', { id: 'page-title' }, 'API keys'),
      h('p', {}, 'Only an owner can see and manage API keys.'),
    )
  const { keys } = await api.get<{ keys: Key[] }>('/api-keys')
  const status = statusRegion()
  const rows = keys.map((k) => [
    h('code', {}, k.hint),
    k.mode,
    day(k.created_at),
    k.revoked_at ? `revoked ${day(k.revoked_at)}` : 'active',
    k.revoked_at
      ? ''
      : actionButton(
          'Revoke',
          status,
          async () => {
            await api.delete(`/api-keys/${encodeURIComponent(k.id)}`)
            ctx.refresh()
            return undefined
          },
          {
            danger: true,
            name: `Revoke ${k.mode} key ${k.hint}`,
            confirm: `Revoke the ${k.mode} key ${k.hint}? Programs using it stop working at once.`,
          },
        ),
  ])
  const mode = h(
    'select',
    { name: 'mode' },
    h('option', { value: 'test' }, 'Test'),
    h('option', { value: 'live' }, 'Live'),
  ) as HTMLSelectElement
  const create = actionForm('Create a key', [field('Mode', mode)], 'Create key', async () => {
    const made = await api.post<{ key: string; mode: string }>('/api-keys', { mode: mode.value })
    return shownOnce(
      'New API key',
      made.key,
      `New ${made.mode} key: copy it now, it is not shown again.`,
    )
  })
  return h(
    'section',
    { 'aria-labelledby': 'page-title', class: 'manage' },
    h('h2', { id: 'page-title' }, 'API keys'),
    table('API keys', ['Key', 'Mode', 'Created', 'Status', ''], rows),
    status,
    create,
  )
}
