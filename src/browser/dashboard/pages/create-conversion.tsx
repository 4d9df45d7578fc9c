/**
 * PowerPoint conversion: upload a .pptx with a progress bar, then follow the conversion job live
 * (polled every 1.5 s until it is completed or failed), and the list of recent jobs.
 */
import type { TargetedSubmitEvent } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type {
  ConversionJob,
  ConversionList,
} from '../../../http/routes/conversions/conversion.schemas.ts'
import { ApiError, api, query } from '../api.client.ts'
import { link } from '../router.ts'
import { useSession } from '../session.ts'
import { DataTable, errorText, Field, when } from '../ui.tsx'

const POLL_MS = 1500

const STATUS_TEXT: Record<ConversionJob['status'], string> = {
  queued: 'Waiting to start',
  processing: 'Converting',
  completed: 'Done',
  failed: 'Failed',
}

const finished = (job: ConversionJob) => job.status === 'completed' || job.status === 'failed'

/**
 * POSTs the form (file, title, scorm_version) as multipart with the session's CSRF token,
 * reporting the fraction sent: XMLHttpRequest, because fetch cannot report upload progress.
 */
function uploadPresentation(
  path: string,
  form: FormData,
  csrf: string,
  onProgress: (fraction: number) => void,
): Promise<ConversionJob> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', `/api/customer${path}`)
    xhr.setRequestHeader('x-csrf-token', csrf)
    xhr.setRequestHeader('accept', 'application/json')
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total)
    })
    xhr.addEventListener('error', () => reject(new ApiError(0, 'network', 'The upload failed')))
    xhr.addEventListener('load', () => {
      let json: { error?: { code?: string; message?: string } } = {}
      try {
        json = JSON.parse(xhr.responseText || '{}')
      } catch {}
      if (xhr.status >= 200 && xhr.status < 300) return resolve(json as unknown as ConversionJob)
      const e = json.error
      reject(new ApiError(xhr.status, e?.code ?? 'error', e?.message ?? `HTTP ${xhr.status}`))
    })
    xhr.send(form)
  })
}

/** The live status of one job, polled until it finishes; `done` runs once when it does. */
function JobStatus(props: { job: ConversionJob; done: () => void }) {
  const { mode } = useSession()
  const [job, setJob] = useState(props.job)
  const [problem, setProblem] = useState('')
  const [retries, setRetries] = useState(0)
  useEffect(() => {
    if (finished(job)) {
      props.done()
      return
    }
    const timer = setTimeout(() => {
      api.get<ConversionJob>(`/conversions/${job.job_id}${query({ mode })}`).then(
        (next) => {
          setProblem('')
          setJob(next)
        },
        (err: unknown) => {
          setProblem(errorText(err))
          // A dropped connection or a busy server is retried; a 4xx answer will not change.
          const status = err instanceof ApiError ? err.status : 0
          if (status === 0 || status >= 500) setRetries((n) => n + 1)
        },
      )
    }, POLL_MS)
    return () => clearTimeout(timer)
  }, [job, mode, retries])
  const { progress } = job
  return (
    <section class="card create-job" aria-labelledby="cnv-job">
      <h3 id="cnv-job">{job.title}</h3>
      <p role="status" aria-live="polite">
        {STATUS_TEXT[job.status]}
        {job.status === 'processing' && ` · ${progress.done} of ${progress.total} slides`}
        {job.status === 'completed' && ` · ${job.slide_count} slides`}
      </p>
      <progress
        max={100}
        value={job.status === 'completed' ? 100 : progress.percent}
        aria-label={`Conversion of ${job.title}`}
      />
      {job.status === 'completed' && job.package_id && (
        <p>
          <a href={link(`/packages/${job.package_id}`)}>Open the package</a>
        </p>
      )}
      {job.error && (
        <p class="error" role="alert">
          {job.error}
        </p>
      )}
      {problem && <p class="error">{problem}</p>}
      {job.warnings.length > 0 && (
        <ul>
          {job.warnings.map((w) => (
            <li key={w.code}>{w.message}</li>
          ))}
        </ul>
      )}
    </section>
  )
}

export function ConversionForm() {
  const { mode, me } = useSession()
  const [sent, setSent] = useState<number | null>(null)
  const [error, setError] = useState('')
  const [job, setJob] = useState<ConversionJob | null>(null)
  const [jobs, setJobs] = useState<ConversionJob[] | null>(null)
  const refresh = () => {
    api.get<ConversionList>(`/conversions${query({ mode, limit: '10' })}`).then(
      (answer) => setJobs(answer.jobs),
      (err: unknown) => setError(errorText(err)),
    )
  }
  useEffect(refresh, [mode])
  const submit = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const data = new FormData(form)
    if (!data.get('title')) data.delete('title')
    setError('')
    setJob(null)
    setSent(0)
    uploadPresentation(`/conversions${query({ mode })}`, data, me.csrf_token, setSent).then(
      (created) => {
        setSent(null)
        form.reset()
        setJob(created)
        refresh()
      },
      (err: unknown) => {
        setSent(null)
        // A used-up monthly allowance is a 429 whose message says when it resets.
        const quota = err instanceof ApiError && err.code === 'quota_exceeded'
        setError(quota ? err.message : errorText(err))
      },
    )
  }
  return (
    <div class="create-form">
      <form class="card" aria-labelledby="cnv-title" onSubmit={submit}>
        <h3 id="cnv-title">Convert a PowerPoint presentation</h3>
        <Field label="Presentation (.pptx)" hint="Hidden slides are left out; macros never run">
          <input name="file" type="file" required accept=".pptx,.pptm,.potx,.ppsx" />
        </Field>
        <Field label="Course title (optional)" hint="Default: the presentation’s title">
          <input name="title" maxLength={300} autocomplete="off" />
        </Field>
        <Field label="SCORM version">
          <select name="scorm_version">
            <option value="2004">SCORM 2004 (4th edition)</option>
            <option value="1.2">SCORM 1.2</option>
          </select>
        </Field>
        <button type="submit" disabled={sent !== null}>
          {sent === null ? 'Upload and convert' : 'Uploading…'}
        </button>
        {sent !== null && <progress max={1} value={sent} aria-label="Upload of the presentation" />}
        <p class="error" role="alert">
          {error}
        </p>
      </form>
      {job && <JobStatus key={job.job_id} job={job} done={refresh} />}
      {jobs && (
        <DataTable
          caption="Recent conversions"
          head={['Course', 'File', 'Status', 'Slides', 'Started', '']}
          keys={jobs.map((j) => j.job_id)}
          empty="No conversion yet."
          rows={jobs.map((j) => [
            j.title,
            j.source_filename,
            j.status === 'processing'
              ? `Converting (${j.progress.percent} %)`
              : STATUS_TEXT[j.status],
            String(j.slide_count),
            when(j.created_at),
            j.package_id ? (
              <a
                href={link(`/packages/${j.package_id}`)}
                key="p"
                aria-label={`Open package: ${j.title}`}
              >
                Open package
              </a>
            ) : (
              ''
            ),
          ])}
        />
      )}
    </div>
  )
}
