import { actionButton, errorText, type PageContext, statusRegion } from './actions.ts'
import { api, query, uploadFile } from './api.client.ts'
import { field, h, table } from './dom.ts'
import { fact } from './webhooks.page.ts'

interface Version {
  id: string
  version_number: number
  active: boolean
  edition: string | null
  title: string
  file_count: number
  total_bytes: number
  original_filename: string
  uploaded_by: string | null
  created_at: string
}
interface RuntimeWarning {
  code: string
  element: string
  example: string
  count: number
  last_seen_at: string
}
interface PackageDetail {
  package: {
    id: string
    title: string
    status: 'active' | 'archived'
    content_type: string
    scorm_version: string | null
    archived_at: string | null
  }
  versions: Version[]
  warnings: string[]
  runtime_warnings: RuntimeWarning[]
}

const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—')
const kib = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024))} KiB`

/** The upload form of the packages page: a zip, a real progress bar, then the new package. */
export function uploadForm(ctx: PageContext): HTMLElement {
  const file = h('input', {
    name: 'file',
    type: 'file',
    accept: '.zip,application/zip',
    required: true,
  }) as HTMLInputElement
  const progress = h('progress', { max: '1', value: '0', 'aria-label': 'Upload progress' })
  const status = statusRegion()
  const button = h('button', { type: 'submit' }, 'Upload')
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'upload-title' },
    h('h3', { id: 'upload-title' }, `Upload a package (${ctx.mode})`),
    field('Package zip (SCORM 1.2/2004, cmi5, Tin Can)', file),
    button,
    progress,
    status,
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const chosen = file.files?.[0]
    if (!chosen) return
    button.disabled = true
    status.replaceChildren(h('p', {}, `Uploading ${chosen.name}…`))
    uploadFile<PackageDetail>(`/packages/upload${query({ mode: ctx.mode })}`, chosen, (f) => {
      progress.value = f
    }).then(
      (made) => {
        button.disabled = false
        location.hash = `#packages?id=${made.package.id}`
      },
      (err: unknown) => {
        button.disabled = false
        progress.value = 0
        status.replaceChildren(h('p', { class: 'error' }, errorText(err)))
      },
    )
  })
  return form
}

/** One package: facts, jobs (archive/restore, test launch), versions and warnings. */
// Long on purpose: builds one page top to bottom; its sections share the loaded package and its
// refresh.
export async function packageDetailPage(ctx: PageContext, id: string): Promise<HTMLElement> {
  const m = query({ mode: ctx.mode })
  const path = `/packages/${encodeURIComponent(id)}`
  const d = await api.get<PackageDetail>(`${path}${m}`)
  const p = d.package
  const status = statusRegion()
  const manage = ctx.me.user.role !== 'viewer'
  const jobs = manage
    ? h(
        'div',
        { class: 'actions' },
        actionButton('Launch as test learner', status, async () => {
          const launch = await api.post<{ launch_url: string }>(
            `${path}/test-launch${m}`,
            undefined,
          )
          window.open(launch.launch_url, '_blank', 'noopener')
          return h(
            'p',
            {},
            'Launched in a new tab. ',
            h('a', { href: launch.launch_url, target: '_blank', rel: 'noopener' }, 'Open it again'),
          )
        }),
        p.status === 'active'
          ? actionButton(
              'Archive',
              status,
              async () => {
                await api.post(`${path}/archive${m}`, undefined)
                ctx.refresh()
                return undefined
              },
              { danger: true, confirm: `Archive ${p.title}? Learners can no longer launch it.` },
            )
          : actionButton('Restore', status, async () => {
              await api.post(`${path}/restore${m}`, undefined)
              ctx.refresh()
              return undefined
            }),
      )
    : null
  return h(
    'section',
    { 'aria-labelledby': 'page-title', class: 'manage' },
    h('p', {}, h('a', { href: '#packages' }, '← All packages')),
    h('h2', { id: 'page-title' }, p.title),
    h(
      'dl',
      { class: 'facts' },
      ...fact(
        'Type',
        p.content_type === 'scorm' ? `SCORM ${p.scorm_version ?? ''}` : p.content_type,
      ),
      ...fact('Status', p.archived_at ? `archived ${when(p.archived_at)}` : p.status),
      ...fact('Id', p.id),
    ),
    jobs,
    status,
    h('h3', {}, 'Versions'),
    table(
      'Versions, newest first',
      ['Version', 'Title', 'Edition', 'Files', 'Size', 'Uploaded', 'Active'],
      d.versions.map((v) => [
        String(v.version_number),
        v.title,
        v.edition ?? '—',
        String(v.file_count),
        kib(v.total_bytes),
        `${when(v.created_at)}${v.uploaded_by ? ` by ${v.uploaded_by}` : ''}`,
        v.active ? 'yes' : 'no',
      ]),
    ),
    h('h3', {}, 'Manifest warnings'),
    d.warnings.length ? h('ul', {}, ...d.warnings.map((w) => h('li', {}, w))) : h('p', {}, 'None.'),
    h('h3', {}, 'Runtime warnings'),
    table(
      'Values the course wrote that the runtime refused',
      ['Code', 'Element', 'Latest value', 'Count', 'Last seen'],
      d.runtime_warnings.map((w) => [
        w.code,
        w.element,
        w.example,
        String(w.count),
        when(w.last_seen_at),
      ]),
    ),
  )
}
