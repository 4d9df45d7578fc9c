import type { PageContext } from './actions.ts'
import { api, query } from './api.client.ts'
import { h } from './dom.ts'

interface Overview {
  packages: number
  active_learners: number
  billing_period: string
  sessions_completed: number
  failing_webhooks: number
}

function figure(label: string, value: number, href: string): HTMLElement {
  return h('div', {}, h('dt', {}, h('a', { href }, label)), h('dd', {}, String(value)))
}

/** The landing page after sign-in: four figures, each a link to the page behind it. */
export async function overviewPage(ctx: PageContext): Promise<HTMLElement> {
  const o = await api.get<Overview>(`/overview${query({ mode: ctx.mode })}`)
  return h(
    'section',
    { 'aria-labelledby': 'page-title', class: 'manage' },
    h('h2', { id: 'page-title' }, 'Overview'),
    h(
      'dl',
      { class: 'figures', 'aria-label': `Figures (${ctx.mode})` },
      figure('Packages', o.packages, '#packages'),
      figure(`Active learners in ${o.billing_period}`, o.active_learners, '#report'),
      figure('Sessions completed in the last 7 days', o.sessions_completed, '#sessions'),
      figure('Failing webhook endpoints', o.failing_webhooks, '#webhooks'),
    ),
  )
}
