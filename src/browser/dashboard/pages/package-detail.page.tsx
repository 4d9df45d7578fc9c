import type { PackageDetail } from '../../../http/routes/packages/package.schemas.ts'
import type { LaunchResponse } from '../../../http/routes/sessions/session.schemas.ts'
import { api, query } from '../api.client.ts'
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import {
  ActionButton,
  DataTable,
  kib,
  Loader,
  PageFrame,
  useLoad,
  useStatus,
  when,
} from '../ui.tsx'
import { UploadForm } from './package-upload.tsx'
import { typeLabel } from './packages.page.tsx'

function Facts(props: { d: PackageDetail }) {
  const { package: p, manifest } = props.d
  const active = props.d.versions.find((v) => v.active)
  const rows: [string, string][] = [
    ['Type', typeLabel(p)],
    ['Edition', active?.edition ?? manifest?.edition ?? '—'],
    ['Active version', active ? String(active.version_number) : '—'],
    ['Status', p.archived_at ? `archived ${when(p.archived_at)}` : p.status],
    ['Manifest', manifest?.manifestPath ?? '—'],
    ['Identifier', manifest?.identifier ?? '—'],
    ['Size', manifest?.totalBytes ? kib(manifest.totalBytes) : '—'],
    ['Id', p.id],
  ]
  return (
    <dl class="facts">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  )
}

/** One package: its facts, jobs, versions (activate one), manifest summary and warnings. */
export function PackageDetailPage(props: { params: Record<string, string> }) {
  const { mode, canManage } = useSession()
  const id = props.params.id ?? ''
  const m = query({ mode })
  const path = `/packages/${encodeURIComponent(id)}`
  const loaded = useLoad(() => api.get<PackageDetail>(`${path}${m}`), [id, mode])
  const status = useStatus()
  const after = async () => {
    loaded.reload()
    return undefined
  }
  return (
    <Loader loaded={loaded}>
      {(d) => (
        <PageFrame
          title={d.package.title}
          back={{ href: link('/packages'), label: 'All packages' }}
        >
          {d.package.description && <p>{d.package.description}</p>}
          <Facts d={d} />
          {canManage && (
            <div class="actions">
              <ActionButton
                label="Launch a preview"
                run={status.run}
                onRun={async () => {
                  const launch = await api.post<LaunchResponse>(`${path}/test-launch${m}`)
                  window.open(launch.launch_url, '_blank', 'noopener')
                  return (
                    <p>
                      Preview opened in a new tab as you (a test learner).{' '}
                      <a href={launch.launch_url} target="_blank" rel="noopener">
                        Open it again
                      </a>
                    </p>
                  )
                }}
              />
              {d.package.status === 'active' ? (
                <ActionButton
                  label="Archive"
                  danger
                  confirm={`Archive ${d.package.title}? Learners can no longer launch it.`}
                  run={status.run}
                  onRun={async () => {
                    await api.post(`${path}/archive${m}`)
                    return after()
                  }}
                />
              ) : (
                <ActionButton
                  label="Restore"
                  run={status.run}
                  onRun={async () => {
                    await api.post(`${path}/restore${m}`)
                    return after()
                  }}
                />
              )}
              <a class="button-link" href={link('/sessions', { package_id: d.package.id })}>
                Sessions of this package
              </a>
              <a class="button-link" href={link('/report', { package_id: d.package.id })}>
                Progress report
              </a>
            </div>
          )}
          {status.node}
          <h3>Versions</h3>
          <DataTable
            caption="Versions, newest first"
            head={['Version', 'Title', 'Edition', 'Files', 'Size', 'Uploaded', 'Active', '']}
            keys={d.versions.map((v) => v.id)}
            rows={d.versions.map((v) => [
              String(v.version_number),
              v.title,
              v.edition ?? '—',
              String(v.file_count),
              kib(v.total_bytes),
              `${when(v.created_at)}${v.uploaded_by ? ` by ${v.uploaded_by}` : ''}`,
              v.active ? 'yes' : 'no',
              !v.active && canManage ? (
                <ActionButton
                  label="Activate"
                  name={`Activate version ${v.version_number}`}
                  run={status.run}
                  onRun={async () => {
                    await api.post(`${path}/versions/${encodeURIComponent(v.id)}/activate${m}`)
                    await after()
                    return <p>Version {v.version_number} is now the one new launches use.</p>
                  }}
                />
              ) : (
                ''
              ),
            ])}
          />
          {canManage && <UploadForm packageId={d.package.id} onDone={loaded.reload} />}
          <h3>Manifest summary</h3>
          <DataTable
            caption="What a learner can launch, in course order"
            head={['Title', 'Kind', 'Launches', 'Id']}
            keys={(d.manifest?.launches ?? []).map((l) => l.id)}
            rows={(d.manifest?.launches ?? []).map((l) => [
              l.title,
              l.kind,
              <code>{l.href}</code>,
              <code>{l.id}</code>,
            ])}
          />
          <h3>Manifest warnings</h3>
          {d.warnings.length ? (
            <ul class="warnings">
              {d.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          ) : (
            <p>None: the manifest imported cleanly.</p>
          )}
          <h3>Runtime warnings</h3>
          <DataTable
            caption="Values the course wrote that the runtime refused"
            head={['Code', 'Element', 'Latest value', 'Count', 'Last seen']}
            empty="None."
            rows={d.runtime_warnings.map((w) => [
              w.code,
              <code>{w.element}</code>,
              w.example,
              String(w.count),
              when(w.last_seen_at),
            ])}
          />
          {!canManage && <p>Viewers can read packages; an admin or owner changes them.</p>}
        </PageFrame>
      )}
    </Loader>
  )
}
