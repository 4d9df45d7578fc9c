import { useState } from 'preact/hooks'
import type { PackageList } from '../../../http/routes/packages/package.schemas.ts'
import { api, query } from '../api.client.ts'
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import { DataTable, day, Field, Loader, PageFrame, useLoad } from '../ui.tsx'
import { UploadForm } from './package-upload.tsx'

export function typeLabel(p: { content_type: string; scorm_version: string | null }): string {
  if (p.content_type === 'scorm') return `SCORM ${p.scorm_version ?? ''}`.trim()
  return p.content_type === 'xapi' ? 'xAPI (Tin Can)' : p.content_type
}

/** The packages of the mode (active or archived) and, for admins and owners, the upload form. */
export function PackagesPage(props: { params: Record<string, string> }) {
  const { mode, canManage } = useSession()
  const [status, setStatus] = useState(props.params.status === 'archived' ? 'archived' : 'active')
  const list = useLoad(
    () => api.get<PackageList>(`/packages${query({ mode, status, limit: '200' })}`),
    [mode, status],
  )
  return (
    <PageFrame title="Packages">
      <div class="filters">
        <Field label="Show">
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="active">Active packages</option>
            <option value="archived">Archived packages</option>
          </select>
        </Field>
      </div>
      <Loader loaded={list}>
        {({ packages }) => (
          <DataTable
            caption={`Packages (${mode}, ${status})`}
            head={['Title', 'Type', 'Versions', 'Status', 'Updated', 'Id']}
            keys={packages.map((p) => p.id)}
            rows={packages.map((p) => [
              <a href={link(`/packages/${p.id}`)}>{p.title}</a>,
              typeLabel(p),
              String(p.version_count),
              p.status,
              day(p.updated_at),
              <code>{p.id}</code>,
            ])}
          />
        )}
      </Loader>
      {canManage && <UploadForm />}
    </PageFrame>
  )
}
