import { accountPage } from './account.page.ts'
import type { PageContext } from './actions.ts'
import { ApiError, api, type Me, type Mode, rememberCsrf } from './api.client.ts'
import { field, h } from './dom.ts'
import { overviewPage } from './overview.page.ts'
import { packageDetailPage } from './package.page.ts'
import { packagesPage, reportPage, sessionsPage } from './pages.ts'
import { keysPage, teamPage } from './team.page.ts'
import { webhookDetailPage, webhooksPage } from './webhooks.page.ts'

/**
 * The dashboard: a sign-in form, then the overview, packages, sessions, the learner-progress
 * report, webhooks, team and API keys of the tenant in the mode the switch names. State lives in
 * the URL fragment (#packages, #webhooks?id=…), so reload and the back button keep the page.
 */
const root = document.getElementById('app') as HTMLElement
const PAGES = {
  overview: 'Overview',
  packages: 'Packages',
  sessions: 'Sessions',
  report: 'Learner progress',
  webhooks: 'Webhooks',
  team: 'Team',
  keys: 'API keys',
  account: 'Account',
} as const
type Page = keyof typeof PAGES

let me: Me | null = null
let mode: Mode = (sessionStorage.getItem('cp-mode') as Mode | null) ?? 'test'

function errorBox(): HTMLElement {
  return h('p', { class: 'error', role: 'alert' })
}

function show(...children: HTMLElement[]): void {
  root.replaceChildren(...children)
}

function messageOf(err: unknown): string {
  if (err instanceof ApiError && err.status === 429) return 'Too many attempts. Wait a few minutes.'
  return err instanceof Error ? err.message : String(err)
}

function signedIn(answer: Me): void {
  me = answer
  rememberCsrf(answer.csrf_token)
  void render()
}

function passwordForm(
  title: string,
  withEmail: boolean,
  submit: (email: string, pw: string) => Promise<Me>,
) {
  const email = h('input', {
    name: 'email',
    type: 'email',
    autocomplete: 'username',
    required: true,
  }) as HTMLInputElement
  const password = h('input', {
    name: 'password',
    type: 'password',
    autocomplete: withEmail ? 'current-password' : 'new-password',
    required: true,
    minlength: withEmail ? undefined : '10',
  }) as HTMLInputElement
  const error = errorBox()
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'form-title' },
    h('h1', { id: 'form-title' }, title),
    withEmail ? field('E-mail', email) : null,
    field(withEmail ? 'Password' : 'New password (at least 10 characters)', password),
    h('button', { type: 'submit' }, withEmail ? 'Sign in' : 'Set password and sign in'),
    error,
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    error.textContent = ''
    submit(email.value, password.value).then(signedIn, (err: unknown) => {
      error.textContent = messageOf(err)
    })
  })
  return h('main', { class: 'center' }, form)
}

function currentPage(): Page {
  const name = location.hash.slice(1).split('?')[0] ?? ''
  return name in PAGES ? (name as Page) : 'overview'
}

function header(page: Page): HTMLElement {
  const select = h(
    'select',
    { name: 'mode', id: 'mode' },
    h('option', { value: 'test', selected: mode === 'test' }, 'Test data'),
    h('option', { value: 'live', selected: mode === 'live' }, 'Live data'),
  ) as HTMLSelectElement
  select.addEventListener('change', () => {
    mode = select.value === 'live' ? 'live' : 'test'
    sessionStorage.setItem('cp-mode', mode)
    void render()
  })
  const logout = h('button', { type: 'button', class: 'link' }, 'Sign out')
  logout.addEventListener('click', () => {
    // Signed out on the page even if the server cannot be told (its session then idles out).
    void api
      .logout()
      .catch(() => undefined)
      .then(() => {
        me = null
        return render()
      })
  })
  return h(
    'header',
    { class: mode === 'live' ? 'top live' : 'top' },
    h('p', { class: 'brand' }, 'Courseport'),
    h(
      'nav',
      { 'aria-label': 'Dashboard' },
      ...Object.entries(PAGES).map(([id, label]) =>
        h('a', { href: `#${id}`, 'aria-current': id === page ? 'page' : undefined }, label),
      ),
    ),
    h('div', { class: 'who' }, field('Mode', select), h('span', {}, me?.user.email ?? ''), logout),
  )
}

const reportFilter: Record<string, string> = {}

/** The hash's parameters: `#webhooks?id=whk_…` → { id: 'whk_…' }. */
function hashParams(): URLSearchParams {
  return new URLSearchParams(location.hash.split('?')[1] ?? '')
}

function pageContent(page: Page, ctx: PageContext): Promise<HTMLElement> | HTMLElement {
  switch (page) {
    case 'overview':
      return overviewPage(ctx)
    case 'packages': {
      const id = hashParams().get('id')
      return id ? packageDetailPage(ctx, id) : packagesPage(ctx)
    }
    case 'sessions':
      return sessionsPage(ctx.mode)
    case 'report':
      return reportPage(ctx.mode, reportFilter)
    case 'webhooks': {
      const id = hashParams().get('id')
      return id ? webhookDetailPage(ctx, id) : webhooksPage(ctx)
    }
    case 'team':
      return teamPage(ctx)
    case 'keys':
      return keysPage(ctx)
    case 'account':
      return accountPage(ctx.me)
  }
}

async function render(): Promise<void> {
  const invite = /^#invite=([A-Za-z0-9]+)$/.exec(location.hash)
  if (invite?.[1]) {
    const token = invite[1]
    return show(
      passwordForm('Choose your password', false, async (_email, pw) => {
        const answer = await api.acceptInvite(token, pw)
        history.replaceState(null, '', '#overview')
        return answer
      }),
    )
  }
  if (!me) {
    try {
      me = await api.me()
      rememberCsrf(me.csrf_token)
    } catch {
      return show(passwordForm('Sign in to Courseport', true, (email, pw) => api.login(email, pw)))
    }
  }
  const page = currentPage()
  const main = h('main', { id: 'content', 'aria-busy': 'true' }, h('p', {}, 'Loading…'))
  show(header(page), main)
  try {
    const content = await pageContent(page, { me, mode, refresh: () => void render() })
    content.querySelector('form[data-report-filter]')?.addEventListener('submit', (event) => {
      event.preventDefault()
      const data = new FormData(event.target as HTMLFormElement)
      for (const key of ['package_id', 'from', 'to'])
        reportFilter[key] = String(data.get(key) ?? '')
      void render()
    })
    main.replaceChildren(content)
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      me = null
      return render()
    }
    const box = errorBox()
    box.textContent = messageOf(err)
    main.replaceChildren(box)
  }
  main.removeAttribute('aria-busy')
}

window.addEventListener('hashchange', () => void render())
void render()
