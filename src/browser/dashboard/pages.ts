import type { PageContext } from './actions.ts'
import { api, type Mode, query } from './api.client.ts'
import { duration, field, h, percent, table } from './dom.ts'
import { uploadForm } from './package.page.ts'

interface PackageRow {
  id: string
  title: string
  status: string
  content_type: string
  scorm_version: string | null
  version_count: number
  updated_at: string
}
interface SessionRow {
  session_id: string
  package_id: string
  learner_id: string
  completion_status: string
  success_status: string
  score: { scaled: number | null }
  time_spent_seconds: number
  created_at: string
}
interface ReportRow {
  package_id: string
  package_title: string | null
  learners: number
  attempts: number
  completion_rate: number
  pass_rate: number | null
  average_score: number | null
  average_time_seconds: number
  median_time_seconds: number
}

const day = (iso: string) => iso.slice(0, 10)

export async function packagesPage(ctx: PageContext): Promise<HTMLElement> {
  const { mode } = ctx
  const { packages } = await api.get<{ packages: PackageRow[] }>(
    `/packages${query({ mode, limit: '100' })}`,
  )
  return h(
    'section',
    { 'aria-labelledby': 'page-title', class: 'manage' },
    h('h2', { id: 'page-title' }, 'Packages'),
    table(
      `Packages (${mode})`,
      ['Title', 'Type', 'Versions', 'Status', 'Updated', 'Id'],
      packages.map((p) => [
        h('a', { href: `#packages?id=${p.id}` }, p.title),
        p.content_type === 'scorm' ? `SCORM ${p.scorm_version ?? ''}` : p.content_type,
        String(p.version_count),
        p.status,
        day(p.updated_at),
        h('code', {}, p.id),
      ]),
    ),
    ctx.me.user.role === 'viewer' ? null : uploadForm(ctx),
  )
}

export async function sessionsPage(mode: Mode): Promise<HTMLElement> {
  const { sessions } = await api.get<{ sessions: SessionRow[] }>(
    `/sessions${query({ mode, limit: '100' })}`,
  )
  return h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h('h2', { id: 'page-title' }, 'Sessions'),
    h(
      'p',
      {},
      h('a', { href: `/api/customer/sessions${query({ mode, format: 'csv' })}` }, 'Export CSV'),
    ),
    table(
      `Latest sessions (${mode})`,
      ['Learner', 'Package', 'Completion', 'Success', 'Score', 'Time', 'Started'],
      sessions.map((s) => [
        s.learner_id,
        h('code', {}, s.package_id),
        s.completion_status,
        s.success_status,
        s.score.scaled === null ? '—' : percent(s.score.scaled),
        duration(s.time_spent_seconds),
        day(s.created_at),
      ]),
    ),
  )
}

export async function reportPage(mode: Mode, filter: Record<string, string>): Promise<HTMLElement> {
  const params = {
    mode,
    package_id: filter.package_id,
    from: filter.from ? `${filter.from}T00:00:00.000Z` : undefined,
    to: filter.to ? `${filter.to}T00:00:00.000Z` : undefined,
  }
  const { packages } = await api.get<{ packages: ReportRow[] }>(
    `/reports/learner-progress${query(params)}`,
  )
  const input = (name: string, type: string) =>
    h('input', { name, type, value: filter[name] ?? '' }) as HTMLInputElement
  const form = h(
    'form',
    { class: 'filters', 'data-report-filter': true },
    field('Package id', input('package_id', 'text')),
    field('From (started on or after)', input('from', 'date')),
    field('To (started before)', input('to', 'date')),
    h('button', { type: 'submit' }, 'Apply'),
  )
  return h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h('h2', { id: 'page-title' }, 'Learner progress'),
    form,
    h(
      'p',
      {},
      h(
        'a',
        { href: `/api/customer/reports/learner-progress${query({ ...params, format: 'csv' })}` },
        'Export CSV',
      ),
    ),
    table(
      `Learner progress per package (${mode})`,
      [
        'Package',
        'Learners',
        'Attempts',
        'Completed',
        'Passed',
        'Avg score',
        'Avg time',
        'Median time',
      ],
      packages.map((r) => [
        r.package_title ?? r.package_id,
        String(r.learners),
        String(r.attempts),
        percent(r.completion_rate),
        percent(r.pass_rate),
        r.average_score === null ? '—' : percent(r.average_score),
        duration(r.average_time_seconds),
        duration(r.median_time_seconds),
      ]),
    ),
  )
}
