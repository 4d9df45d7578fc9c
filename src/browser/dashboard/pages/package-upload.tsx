import type { TargetedSubmitEvent } from 'preact'
import { useRef, useState } from 'preact/hooks'
import type {
  PackageDetail,
  UploadUrlResponse,
} from '../../../http/routes/packages/package.schemas.ts'
import { ApiError, api, putWithProgress, query, uploadFile } from '../api.client.ts'
import { navigate } from '../router.ts'
import { useSession } from '../session.ts'
import { errorText, Field, kib } from '../ui.tsx'

type Phase =
  | { kind: 'idle' }
  | { kind: 'sending'; fraction: number; name: string; size: number }
  | { kind: 'processing'; name: string }
  | { kind: 'failed'; message: string }

/**
 * The presigned upload with a real progress bar: ask for a URL, PUT the file there with
 * XMLHttpRequest (whose upload events count the bytes sent), then have the server process it.
 * When the URL is on another origin (an S3 bucket the page's CSP does not name), the file goes
 * as a multipart POST to the dashboard's API instead, with the same progress bar.
 */
async function sendPackage(
  mode: string,
  file: File,
  packageId: string | undefined,
  onProgress: (f: number) => void,
  onProcessing: () => void,
): Promise<PackageDetail> {
  const m = query({ mode })
  const url = await api.post<UploadUrlResponse>(`/packages/upload-url${m}`, {
    filename: file.name,
    file_size: file.size,
  })
  if (new URL(url.presigned_url, location.href).origin !== location.origin) {
    const path = packageId
      ? `/packages/${encodeURIComponent(packageId)}/versions`
      : '/packages/upload'
    return uploadFile<PackageDetail>(`${path}${m}`, file, onProgress)
  }
  await putWithProgress(url.presigned_url, url.required_put_headers, file, onProgress)
  onProcessing()
  return api.post<PackageDetail>(`/packages/process${m}`, {
    storage_path: url.storage_path,
    ...(packageId && { package_id: packageId }),
  })
}

/** A form that uploads a package zip (or a new version of `packageId`) and then opens it. */
export function UploadForm(props: { packageId?: string; onDone?: () => void }) {
  const { mode } = useSession()
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' })
  const input = useRef<HTMLInputElement>(null)
  const busy = phase.kind === 'sending' || phase.kind === 'processing'
  const title = props.packageId ? 'Upload a new version' : `Upload a package (${mode})`
  const id = props.packageId ? 'version-upload-title' : 'upload-title'
  const submit = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const file = input.current?.files?.[0]
    if (!file) return
    setPhase({ kind: 'sending', fraction: 0, name: file.name, size: file.size })
    sendPackage(
      mode,
      file,
      props.packageId,
      (fraction) => setPhase({ kind: 'sending', fraction, name: file.name, size: file.size }),
      () => setPhase({ kind: 'processing', name: file.name }),
    ).then(
      (made) => {
        setPhase({ kind: 'idle' })
        if (input.current) input.current.value = ''
        if (props.onDone) props.onDone()
        else navigate(`/packages/${made.package.id}`)
      },
      (err: unknown) =>
        setPhase({
          kind: 'failed',
          message:
            err instanceof ApiError && err.status === 413
              ? `The file is too large: ${err.message}`
              : errorText(err),
        }),
    )
  }
  const fraction = phase.kind === 'sending' ? phase.fraction : phase.kind === 'processing' ? 1 : 0
  return (
    <form class="card upload" aria-labelledby={id} onSubmit={submit}>
      <h3 id={id}>{title}</h3>
      <Field label="Package zip (SCORM 1.2/2004, cmi5, Tin Can)">
        <input ref={input} name="file" type="file" accept=".zip,application/zip" required />
      </Field>
      <button type="submit" disabled={busy}>
        Upload
      </button>
      <progress
        max={1}
        value={fraction}
        aria-label="Upload progress"
        aria-valuetext={`${Math.round(fraction * 100)} %`}
      />
      <div role="status" class="status">
        {phase.kind === 'sending' && (
          <p>
            Uploading {phase.name}: {Math.round(phase.fraction * 100)} % of {kib(phase.size)}
          </p>
        )}
        {phase.kind === 'processing' && <p>Checking {phase.name} and storing its files…</p>}
        {phase.kind === 'failed' && <p class="error">{phase.message}</p>}
      </div>
    </form>
  )
}
