/**
 * Dispatches: every dispatch of the mode with its seats used against the licence limit and its
 * refused launches, a wrapper download per row, and (admins and owners) the form that creates
 * one. A dispatch's own page (dispatches-detail.page.tsx) pauses, extends, revokes and deletes.
 */
import type { Dispatch, DispatchList } from '../../../http/routes/dispatches/dispatch.schemas.ts'
import type { Package, PackageList } from '../../../http/routes/packages/package.schemas.ts'
import { api, query } from '../api.client.ts'
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import {
  ActionForm,
  DataTable,
  day,
  Field,
  formValues,
  Loader,
  PageFrame,
  useLoad,
} from '../ui.tsx'
import { Seats, STATUS_TEXT, wrapperUrl } from './dispatches-shared.tsx'

/** Lines or commas → trimmed, non-empty entries. */
function entries(text: string | undefined): string[] {
  return (text ?? '')
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean)
}

/** The create form's values as the API's body (expiry: the end of the chosen day, UTC). */
function createBody(v: Record<string, string>) {
  return {
    packageId: v.packageId ?? '',
    name: v.name ?? '',
    licenseLimit: v.licenseLimit ? Number(v.licenseLimit) : null,
    expiresAt: v.expires ? `${v.expires}T23:59:59.999Z` : null,
    allowedDomains: entries(v.allowedDomains),
    tags: entries(v.tags),
  }
}

function CreateDispatch(props: { packages: Package[]; created: () => void }) {
  const { mode } = useSession()
  const scorm = props.packages.filter((p) => p.content_type === 'scorm' && p.status === 'active')
  if (scorm.length === 0)
    return (
      <p class="card">
        To create a dispatch, first upload a SCORM package on the{' '}
        <a href={link('/packages')}>Packages</a> page (in this mode).
      </p>
    )
  return (
    <ActionForm
      title="New dispatch"
      button="Create dispatch"
      class="card dsp-form"
      onSubmit={async (form) => {
        const made = await api.post<Dispatch>(
          `/dispatches${query({ mode })}`,
          createBody(formValues(form)),
        )
        form.reset()
        props.created()
        return (
          <p>
            Created “{made.name}”.{' '}
            <a href={wrapperUrl(made.id, mode)} download="">
              Download its wrapper zip
            </a>{' '}
            and import it into the client LMS, or{' '}
            <a href={link(`/dispatches/${made.id}`)}>manage it</a>.
          </p>
        )
      }}
    >
      <Field label="Package">
        <select name="packageId" required>
          {scorm.map((p) => (
            <option value={p.id} key={p.id}>
              {p.title} (SCORM {p.scorm_version})
            </option>
          ))}
        </select>
      </Field>
      <Field label="Name" hint="Usually the client, e.g. “Acme Corp LMS”">
        <input name="name" required maxLength={255} autocomplete="off" />
      </Field>
      <Field
        label="Licence limit (optional)"
        hint="Unique learners who may launch; empty: no limit"
      >
        <input name="licenseLimit" type="number" min={1} step={1} inputMode="numeric" />
      </Field>
      <Field label="Expires on (optional)" hint="Launches are refused after this day (UTC)">
        <input name="expires" type="date" />
      </Field>
      <Field
        label="Allowed LMS domains (optional)"
        hint="One per line, e.g. lms.example.com or *.example.com; empty: anywhere"
      >
        <textarea name="allowedDomains" rows={2} />
      </Field>
      <Field label="Tags (optional)" hint="Separated by commas">
        <input name="tags" autocomplete="off" />
      </Field>
    </ActionForm>
  )
}

function DispatchTable(props: { dispatches: Dispatch[]; titles: Map<string, string> }) {
  const { mode } = useSession()
  return (
    <DataTable
      caption={`Dispatches (${mode} mode), newest first`}
      head={['Name', 'Package', 'Status', 'Seats used', 'Launches', 'Refused', 'Expires', '']}
      keys={props.dispatches.map((d) => d.id)}
      empty="No dispatch yet."
      rows={props.dispatches.map((d) => [
        <a href={link(`/dispatches/${d.id}`)} key="n">
          {d.name}
        </a>,
        <a href={link(`/packages/${d.packageId}`)} key="p">
          {props.titles.get(d.packageId) ?? d.packageId}
        </a>,
        STATUS_TEXT[d.status],
        <Seats dispatch={d} key="s" />,
        String(d.counts.launches),
        String(d.counts.refusals),
        day(d.expiresAt) === '—' ? 'Never' : day(d.expiresAt),
        <a
          href={wrapperUrl(d.id, mode)}
          download=""
          key="w"
          aria-label={`Download wrapper of ${d.name}`}
        >
          Download wrapper
        </a>,
      ])}
    />
  )
}

export function DispatchesPage(_props: { params: Record<string, string> }) {
  const { mode, canManage } = useSession()
  const loaded = useLoad(
    () =>
      Promise.all([
        api.get<DispatchList>(`/dispatches${query({ mode, limit: '200' })}`),
        api.get<PackageList>(`/packages${query({ mode, limit: '200' })}`),
      ]),
    [mode],
  )
  return (
    <PageFrame title="Dispatches">
      <p>
        A dispatch lets another organisation’s LMS run one of your packages: it imports a small
        wrapper zip, learners launch from there, and you keep control of seats and dates.
      </p>
      <Loader loaded={loaded}>
        {([list, pkgs]) => (
          <>
            {canManage ? (
              <CreateDispatch packages={pkgs.packages} created={loaded.reload} />
            ) : (
              <p>You can read dispatches and download wrappers; an admin or owner changes them.</p>
            )}
            <DispatchTable
              dispatches={list.dispatches}
              titles={new Map(pkgs.packages.map((p) => [p.id, p.title]))}
            />
          </>
        )}
      </Loader>
    </PageFrame>
  )
}
