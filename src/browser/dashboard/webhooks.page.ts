import { actionForm } from './account.page.ts'
import { actionButton, type PageContext, shownOnce, statusRegion } from './actions.ts'
import { api, query } from './api.client.ts'
import { field, h, table } from './dom.ts'

interface Webhook {
  id: string
  label: string | null
  url: string
  status: 'active' | 'disabled'
  eventScope: string
  mode: string
  secretRotatedAt: string | null
  previousSecretExpiresAt: string | null
  createdAt: string
}
interface Attempt {
  number: number
  outcome: string
  status_code: number | null
  error: string | null
}
interface Delivery {
  delivery_id: string
  event: string
  status: string
  attempts: number
  max_attempts: number
  last_status_code: number | null
  last_error: string | null
  created_at: string
  attempt_history: Attempt[]
}

/** "#1 HTTP 500, #2 timeout": every attempt of the delivery, oldest first. */
function attemptsText(d: Delivery): string {
  if (!d.attempt_history.length) return 'none yet'
  return d.attempt_history
    .map(
      (a) =>
        `#${a.number} ${a.status_code === null ? (a.error ?? a.outcome) : `HTTP ${a.status_code}`}`,
    )
    .join(', ')
}

const SCOPES = ['all', 'packages', 'sessions', 'usage', 'dispatches', 'competency']
const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—')
const canManage = (ctx: PageContext) => ctx.me.user.role !== 'viewer'

async function endpointTable(ctx: PageContext): Promise<HTMLElement> {
  const { webhooks } = await api.get<{ webhooks: Webhook[] }>(
    `/webhooks${query({ mode: ctx.mode, limit: '100' })}`,
  )
  const rows = webhooks.map((w) => [
    h('a', { href: `#webhooks?id=${w.id}` }, w.label ?? w.url),
    w.url,
    w.eventScope,
    w.status,
    when(w.createdAt),
  ])
  return table(
    `Webhook endpoints (${ctx.mode})`,
    ['Endpoint', 'URL', 'Events', 'Status', 'Created'],
    rows,
  )
}

/** The list of endpoints of the mode and, for admins and owners, the form that adds one. */
export async function webhooksPage(ctx: PageContext): Promise<HTMLElement> {
  const list = h('div', {}, await endpointTable(ctx))
  // The form's answer (the secret, shown once) stays on screen; only the list is redrawn.
  const reload = async () => list.replaceChildren(await endpointTable(ctx))
  return h(
    'section',
    { 'aria-labelledby': 'page-title', class: 'manage' },
    h('h2', { id: 'page-title' }, 'Webhooks'),
    list,
    canManage(ctx) ? createForm(ctx, reload) : null,
  )
}

function createForm(ctx: PageContext, reload: () => Promise<void>): HTMLElement {
  const url = h('input', { name: 'url', type: 'url', required: true, placeholder: 'https://' })
  const label = h('input', { name: 'label', type: 'text', maxlength: '200' })
  const scope = h(
    'select',
    { name: 'eventScope' },
    ...SCOPES.map((s) => h('option', { value: s }, s)),
  ) as HTMLSelectElement
  return actionForm(
    `Add a ${ctx.mode} endpoint`,
    [field('HTTPS URL', url), field('Label', label), field('Events', scope)],
    'Add endpoint',
    async () => {
      const made = await api.post<{ webhook: Webhook; secret: string }>(
        `/webhooks${query({ mode: ctx.mode })}`,
        { url: url.value, label: label.value || undefined, eventScope: scope.value },
      )
      await reload()
      return h(
        'div',
        {},
        shownOnce(
          'Signing secret',
          made.secret,
          'Endpoint added. Copy its signing secret now: it is not shown again.',
        ),
        h('p', {}, h('a', { href: `#webhooks?id=${made.webhook.id}` }, 'Open the endpoint')),
      )
    },
  )
}

/** One endpoint: its settings, the jobs on it, and its delivery history with attempts. */
// Long on purpose: builds one page top to bottom; its sections share the loaded endpoint and its
// refresh.
export async function webhookDetailPage(ctx: PageContext, id: string): Promise<HTMLElement> {
  const m = query({ mode: ctx.mode })
  const [{ webhook: w }, { deliveries }] = await Promise.all([
    api.get<{ webhook: Webhook }>(`/webhooks/${encodeURIComponent(id)}${m}`),
    api.get<{ deliveries: Delivery[] }>(
      `/webhooks/${encodeURIComponent(id)}/deliveries${query({ mode: ctx.mode, limit: '50' })}`,
    ),
  ])
  const status = statusRegion()
  const path = `/webhooks/${encodeURIComponent(w.id)}`
  const jobs = canManage(ctx)
    ? h(
        'div',
        { class: 'actions' },
        actionButton('Send test event', status, async () => {
          await api.post(`${path}/test${m}`, undefined)
          ctx.refresh()
          return undefined
        }),
        actionButton('Rotate secret', status, async () => {
          const made = await api.post<{ secret: string }>(`${path}/rotate-secret${m}`, undefined)
          return shownOnce(
            'New signing secret',
            made.secret,
            'New secret: copy it now, it is not shown again. The old one also signs for 24 hours.',
          )
        }),
        actionButton(w.status === 'active' ? 'Disable' : 'Enable', status, async () => {
          await api.patch(`${path}${m}`, { status: w.status === 'active' ? 'disabled' : 'active' })
          ctx.refresh()
          return undefined
        }),
        actionButton(
          'Delete',
          status,
          async () => {
            await api.delete(`${path}${m}`)
            location.hash = '#webhooks'
            return undefined
          },
          { danger: true, confirm: `Delete ${w.url} and its delivery history?` },
        ),
      )
    : null
  const history = table(
    'Deliveries, newest first',
    ['Event', 'Status', 'Attempts', 'Attempt history', 'Created', ''],
    deliveries.map((d) => [
      d.event,
      d.status,
      `${d.attempts} of ${d.max_attempts}`,
      attemptsText(d),
      when(d.created_at),
      d.status === 'dead_letter' && canManage(ctx)
        ? actionButton(
            'Re-queue',
            status,
            async () => {
              await api.post(
                `/webhook-deliveries/${encodeURIComponent(d.delivery_id)}/requeue${m}`,
                undefined,
              )
              ctx.refresh()
              return undefined
            },
            { name: `Re-queue delivery ${d.delivery_id}` },
          )
        : '',
    ]),
  )
  return h(
    'section',
    { 'aria-labelledby': 'page-title', class: 'manage' },
    h('p', {}, h('a', { href: '#webhooks' }, '← All webhooks')),
    h('h2', { id: 'page-title' }, w.label ?? w.url),
    h(
      'dl',
      { class: 'facts' },
      ...fact('URL', w.url),
      ...fact('Events', w.eventScope),
      ...fact('Status', w.status),
      ...fact('Mode', w.mode),
      ...fact('Secret rotated', when(w.secretRotatedAt)),
      ...fact('Id', w.id),
    ),
    jobs,
    status,
    h('h3', {}, 'Delivery history'),
    history,
  )
}

export function fact(name: string, value: string): HTMLElement[] {
  return [h('dt', {}, name), h('dd', {}, value)]
}
