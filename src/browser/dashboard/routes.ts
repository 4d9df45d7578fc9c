/**
 * The dashboard's pages. To add one: write `pages/<name>.page.tsx` exporting a component that
 * takes `{ params }` (path parameters such as `:id`, plus the `?query` of the URL fragment), then
 * add ONE line below: `{ path: '/things/:id', title: 'Thing', nav: false, component: ThingPage }`.
 * `nav: true` puts it in the top navigation, in array order. Links are `#/things/thg_1`
 * (router.ts `link()`); data comes from `api` in api.client.ts (CSRF handled there); the
 * signed-in user and test/live mode from `useSession()` in session.ts; tables, forms and
 * formatting from ui.tsx. The first route that matches wins; `/` is the overview.
 */
import type { ComponentType } from 'preact'
import { AccountPage } from './pages/account.page.tsx'
import { CreatePage } from './pages/create.page.tsx'
import { DispatchesPage } from './pages/dispatches.page.tsx'
import { DispatchDetailPage } from './pages/dispatches-detail.page.tsx'
import { KeysPage } from './pages/keys.page.tsx'
import { LrsPage } from './pages/lrs.page.tsx'
import { OverviewPage } from './pages/overview.page.tsx'
import { PackageDetailPage } from './pages/package-detail.page.tsx'
import { PackagesPage } from './pages/packages.page.tsx'
import { ReportPage } from './pages/report.page.tsx'
import { SessionDetailPage } from './pages/session-detail.page.tsx'
import { SessionsPage } from './pages/sessions.page.tsx'
import { TeamPage } from './pages/team.page.tsx'
import { WebhookDetailPage } from './pages/webhook-detail.page.tsx'
import { WebhooksPage } from './pages/webhooks.page.tsx'

export interface DashboardRoute {
  /** `/packages/:id`: segments starting with `:` become params. */
  path: string
  /** The document title and, when `nav`, the navigation link's text. */
  title: string
  nav: boolean
  component: ComponentType<{ params: Record<string, string> }>
}

export const routes: DashboardRoute[] = [
  { path: '/overview', title: 'Overview', nav: true, component: OverviewPage },
  { path: '/packages', title: 'Packages', nav: true, component: PackagesPage },
  { path: '/packages/:id', title: 'Package', nav: false, component: PackageDetailPage },
  { path: '/sessions', title: 'Sessions', nav: true, component: SessionsPage },
  { path: '/sessions/:id', title: 'Session', nav: false, component: SessionDetailPage },
  { path: '/report', title: 'Learner progress', nav: true, component: ReportPage },
  { path: '/webhooks', title: 'Webhooks', nav: true, component: WebhooksPage },
  { path: '/webhooks/:id', title: 'Webhook', nav: false, component: WebhookDetailPage },
  { path: '/create', title: 'Course creation', nav: true, component: CreatePage },
  { path: '/dispatches', title: 'Dispatches', nav: true, component: DispatchesPage },
  { path: '/dispatches/:id', title: 'Dispatch', nav: false, component: DispatchDetailPage },
  { path: '/lrs', title: 'LRS', nav: true, component: LrsPage },
  { path: '/team', title: 'Team', nav: true, component: TeamPage },
  { path: '/keys', title: 'API keys', nav: true, component: KeysPage },
  { path: '/account', title: 'Account', nav: true, component: AccountPage },
]
