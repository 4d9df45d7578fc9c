/**
 * One dispatch: its figures (seats used against the licence limit, launches, completions, refused
 * launches and why), wrapper downloads, and the lifecycle actions the state machine allows from
 * its status (pause, resume, archive, restore, delete), revoking old wrappers, and a form that
 * edits its name, licence limit, allowed domains, tags and expiry.
 */
import type {
  Dispatch,
  DispatchRefusal,
  RefusalList,
} from '../../../http/routes/dispatches/dispatch.schemas.ts'
import { api, query } from '../api.client.ts'
import { link, navigate } from '../router.ts'
import { useSession } from '../session.ts'
import {
  ActionButton,
  ActionForm,
  DataTable,
  Field,
  formValues,
  Loader,
  PageFrame,
  useLoad,
  useStatus,
  when,
} from '../ui.tsx'
import { Seats, STATUS_TEXT, wrapperUrl } from './dispatches-shared.tsx'

/** What a learner was told, in the words an administrator would use. */
const REASONS: Record<string, string> = {
  license_limit: 'All seats taken',
  paused: 'Dispatch paused',
  expired: 'Dispatch expired',
  archived: 'Dispatch archived',
  deleted: 'Dispatch deleted',
  domain_not_allowed: 'LMS domain not allowed',
  no_learner: 'LMS sent no learner',
  package_unavailable: 'Package unavailable',
  rate_limited: 'Too many new learners in a minute',
  wrapper_revoked: 'Old (revoked) wrapper',
}

type Action = 'pause' | 'resume' | 'archive' | 'restore'

/** Lifecycle buttons allowed from each status (docs/dispatch.md's state machine). */
const ACTIONS: Record<Dispatch['status'], Action[]> = {
  active: ['pause', 'archive'],
  paused: ['resume', 'archive'],
  expired: ['archive'],
  archived: ['restore'],
}

const LABELS: Record<Action, string> = {
  pause: 'Pause',
  resume: 'Resume',
  archive: 'Archive',
  restore: 'Restore',
}

function Facts(props: { d: Dispatch; packageTitle: string | undefined }) {
  const { d } = props
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>{STATUS_TEXT[d.status]}</dd>
      <dt>Package</dt>
      <dd>
        <a href={link(`/packages/${d.packageId}`)}>{props.packageTitle ?? d.packageId}</a>
      </dd>
      <dt>Seats used</dt>
      <dd>
        <Seats dispatch={d} />
      </dd>
      <dt>Launches</dt>
      <dd>{d.counts.launches}</dd>
      <dt>Learners who completed</dt>
      <dd>{d.counts.completions}</dd>
      <dt>Refused launches</dt>
      <dd>
        {d.counts.refusals}
        {d.counts.rateLimited > 0 && ` (${d.counts.rateLimited} for too many new learners)`}
      </dd>
      <dt>Learners kept apart</dt>
      <dd>{d.counts.separatedLearners} (launched without their learner key)</dd>
      <dt>Expires</dt>
      <dd>{d.expiresAt ? when(d.expiresAt) : 'Never'}</dd>
      <dt>Allowed LMS domains</dt>
      <dd>{d.allowedDomains.length ? d.allowedDomains.join(', ') : 'Anywhere'}</dd>
      <dt>Tags</dt>
      <dd>{d.tags.length ? d.tags.join(', ') : '—'}</dd>
      <dt>Wrapper generation</dt>
      <dd>{d.wrapperGeneration}</dd>
      <dt>Created</dt>
      <dd>{when(d.createdAt)}</dd>
    </dl>
  )
}

/** Comma- or line-separated entries, trimmed, without empty ones. */
function entries(text: string | undefined): string[] {
  return (text ?? '')
    .split(/[\n,]/)
    .map((e) => e.trim())
    .filter(Boolean)
}

/**
 * Name, licence limit, allowed domains and tags go through PATCH; the expiry through POST
 * …/extend, only when its day changed, since it may only move later (or go): so the field is
 * there only when the dispatch has an expiry and is not archived.
 */
function EditDispatch(props: { d: Dispatch; changed: () => void }) {
  const { mode } = useSession()
  const { d } = props
  const expiryDay = d.expiresAt ? d.expiresAt.slice(0, 10) : ''
  return (
    <ActionForm
      title="Edit"
      button="Save changes"
      onSubmit={async (form) => {
        const v = formValues(form)
        const base = `/dispatches/${d.id}`
        await api.patch<Dispatch>(`${base}${query({ mode })}`, {
          name: v.name,
          licenseLimit: v.licenseLimit ? Number(v.licenseLimit) : null,
          allowedDomains: entries(v.allowedDomains),
          tags: entries(v.tags),
        })
        const extended = 'expires' in v && v.expires !== expiryDay
        if (extended) {
          const expiresAt = v.expires ? `${v.expires}T23:59:59.999Z` : null
          await api.post<Dispatch>(`${base}/extend${query({ mode })}`, { expiresAt })
        }
        props.changed()
        return <p>Saved.</p>
      }}
    >
      <Field label="Name">
        <input name="name" required maxLength={255} defaultValue={d.name} autocomplete="off" />
      </Field>
      <Field label="Licence limit" hint="Unique learners who may launch; empty: no limit">
        <input
          name="licenseLimit"
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          defaultValue={d.licenseLimit === null ? '' : String(d.licenseLimit)}
        />
      </Field>
      <Field
        label="Allowed LMS domains"
        hint="One per line, e.g. lms.example.com or *.example.com; empty: anywhere"
      >
        <textarea name="allowedDomains" rows={2} defaultValue={d.allowedDomains.join('\n')} />
      </Field>
      <Field label="Tags" hint="Separated by commas">
        <input name="tags" autocomplete="off" defaultValue={d.tags.join(', ')} />
      </Field>
      {d.status !== 'archived' && d.expiresAt !== null && (
        <Field
          label="Expiry day (UTC)"
          hint="Only later than the current expiry; empty: never expires"
        >
          <input name="expires" type="date" defaultValue={expiryDay} />
        </Field>
      )}
    </ActionForm>
  )
}

function Manage(props: { d: Dispatch; changed: () => void }) {
  const { mode } = useSession()
  const { d } = props
  const status = useStatus()
  const path = (action: string) => `/dispatches/${d.id}/${action}${query({ mode })}`
  const act = (action: Action) => async () => {
    const next = await api.post<Dispatch>(path(action))
    props.changed()
    return <p>{`Done: the dispatch is now ${STATUS_TEXT[next.status].toLowerCase()}.`}</p>
  }
  return (
    <section class="manage" aria-labelledby="dsp-manage">
      <h3 id="dsp-manage">Change</h3>
      <div class="actions">
        {ACTIONS[d.status].map((action) => (
          <ActionButton
            key={action}
            label={LABELS[action]}
            run={status.run}
            onRun={act(action)}
            name={`${LABELS[action]} dispatch`}
          />
        ))}
        <ActionButton
          label="Revoke old wrappers"
          run={status.run}
          confirm="Every wrapper zip downloaded so far stops launching. Continue?"
          onRun={async () => {
            await api.post<Dispatch>(path('revoke-wrappers'))
            props.changed()
            return <p>Old wrappers revoked: download the new wrapper and import it again.</p>
          }}
        />
        <ActionButton
          label="Delete"
          danger
          name="Delete dispatch"
          run={status.run}
          confirm={`Delete “${d.name}”? Its wrappers stop launching; this cannot be undone.`}
          onRun={async () => {
            await api.delete(`/dispatches/${d.id}${query({ mode })}`)
            navigate('/dispatches')
            return undefined
          }}
        />
      </div>
      {status.node}
      <EditDispatch d={d} changed={props.changed} />
    </section>
  )
}

function Refusals(props: { refusals: DispatchRefusal[] }) {
  return (
    <DataTable
      caption="Latest refused launches"
      head={['When', 'Why', 'Learner', 'LMS origin']}
      keys={props.refusals.map((r) => r.id)}
      empty="No launch refused."
      rows={props.refusals.map((r) => [
        when(r.occurredAt),
        REASONS[r.reason] ?? r.reason,
        r.learnerId ?? '—',
        r.origin ?? '—',
      ])}
    />
  )
}

export function DispatchDetailPage(props: { params: Record<string, string> }) {
  const { mode, canManage } = useSession()
  const id = props.params.id ?? ''
  const loaded = useLoad(async () => {
    const path = `/dispatches/${encodeURIComponent(id)}`
    const [d, refused] = await Promise.all([
      api.get<Dispatch>(`${path}${query({ mode })}`),
      api.get<RefusalList>(`${path}/refusals${query({ mode })}`),
    ])
    // The package's title is a nicety: the page works without it.
    const pkg = await api
      .get<{ package: { title: string } }>(`/packages/${d.packageId}${query({ mode })}`)
      .catch(() => null)
    return { d, refused, packageTitle: pkg?.package.title }
  }, [id, mode])
  return (
    <Loader loaded={loaded}>
      {({ d, refused, packageTitle }) => (
        <PageFrame
          title={`Dispatch: ${d.name}`}
          back={{ href: link('/dispatches'), label: 'All dispatches' }}
        >
          <Facts d={d} packageTitle={packageTitle} />
          <p class="actions">
            <a href={wrapperUrl(d.id, mode)} download="">
              Download wrapper zip
            </a>
            <a href={wrapperUrl(d.id, mode, '1.2')} download="">
              SCORM 1.2 wrapper
            </a>
            <a href={wrapperUrl(d.id, mode, '2004')} download="">
              SCORM 2004 wrapper
            </a>
          </p>
          {canManage && <Manage d={d} changed={loaded.reload} />}
          <Refusals refusals={refused.refusals} />
        </PageFrame>
      )}
    </Loader>
  )
}
