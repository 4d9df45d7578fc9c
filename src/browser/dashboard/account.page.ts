import { ApiError, api, type Me } from './api.client.ts'
import { field, h } from './dom.ts'

interface Invite {
  email: string
  role: string
  invite_url: string
  expires_at: string
}

function input(name: string, type: string, autocomplete?: string): HTMLInputElement {
  return h('input', { name, type, required: true, autocomplete }) as HTMLInputElement
}

/** A form whose submit runs `action` and shows its outcome in a live region below it. */
export function actionForm(
  title: string,
  fields: HTMLElement[],
  button: string,
  action: () => Promise<string | HTMLElement>,
): HTMLElement {
  const id = `${title.toLowerCase().replaceAll(' ', '-')}-title`
  const status = h('div', { role: 'status', class: 'status' })
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': id },
    h('h3', { id }, title),
    ...fields,
    h('button', { type: 'submit' }, button),
    status,
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    status.replaceChildren()
    action().then(
      (done) => status.replaceChildren(done),
      (err: unknown) =>
        status.replaceChildren(
          h('p', { class: 'error' }, err instanceof ApiError ? err.message : String(err)),
        ),
    )
  })
  return form
}

/** The signed-in user's password, and for owners a one-time invite link for a new user. */
export function accountPage(me: Me): HTMLElement {
  const current = input('current_password', 'password', 'current-password')
  const next = input('new_password', 'password', 'new-password')
  next.minLength = 10
  const password = actionForm(
    'Change password',
    [field('Current password', current), field('New password (at least 10 characters)', next)],
    'Change password',
    async () => {
      await api.post('/password', { current_password: current.value, new_password: next.value })
      current.value = ''
      next.value = ''
      return 'Password changed. Other browsers signed in as you were signed out.'
    },
  )
  const email = input('email', 'email', 'off')
  const role = h(
    'select',
    { name: 'role' },
    h('option', { value: 'viewer' }, 'Viewer'),
    h('option', { value: 'admin' }, 'Admin'),
    h('option', { value: 'owner' }, 'Owner'),
  ) as HTMLSelectElement
  const invite =
    me.user.role === 'owner'
      ? actionForm(
          'Invite a user',
          [field('E-mail', email), field('Role', role)],
          'Create invite link',
          async () => {
            const made = await api.post<Invite>('/invites', {
              email: email.value,
              role: role.value,
            })
            const link = h('input', {
              readonly: true,
              value: made.invite_url,
              'aria-label': `One-time link for ${made.email}`,
            })
            return h(
              'div',
              {},
              h(
                'p',
                {},
                `Send this one-time link to ${made.email} (${made.role}); it works until ${made.expires_at.slice(0, 16).replace('T', ' ')} UTC:`,
              ),
              link,
            )
          },
        )
      : null
  return h(
    'section',
    { 'aria-labelledby': 'page-title', class: 'account' },
    h('h2', { id: 'page-title' }, 'Account'),
    h('p', {}, `Signed in as ${me.user.email} (${me.user.role}).`),
    password,
    invite,
  )
}
