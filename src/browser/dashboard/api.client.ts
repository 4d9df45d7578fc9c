/** The dashboard's only way to the server: /api/customer/* with the session's CSRF token. */

export type Mode = 'test' | 'live'

export interface Me {
  user: { id: string; email: string; role: 'owner' | 'admin' | 'viewer'; tenant_id: string }
  csrf_token: string
}

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  constructor(status: number, code: string, message: string) {
    super(message)
    this.status = status
    this.code = code
  }
}

let csrfToken = ''

export function rememberCsrf(token: string): void {
  csrfToken = token
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken
  const res = await fetch(`/api/customer${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  if (res.status === 204) return undefined as T
  const text = await res.text()
  const json = text ? (JSON.parse(text) as unknown) : {}
  if (!res.ok) {
    const error = (json as { error?: { code?: string; message?: string } }).error
    throw new ApiError(res.status, error?.code ?? 'error', error?.message ?? res.statusText)
  }
  return json as T
}

export function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v) search.set(k, v)
  const text = search.toString()
  return text ? `?${text}` : ''
}

/**
 * POSTs `file` as multipart field "file", calling `onProgress` with the fraction sent (0–1):
 * XMLHttpRequest, because fetch cannot report upload progress.
 */
export function uploadFile<T>(
  path: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<T> {
  const form = new FormData()
  form.append('file', file)
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', `/api/customer${path}`)
    xhr.setRequestHeader('x-csrf-token', csrfToken)
    xhr.setRequestHeader('accept', 'application/json')
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total)
    })
    xhr.addEventListener('error', () => reject(new ApiError(0, 'network', 'The upload failed')))
    xhr.addEventListener('load', () => {
      let json: unknown = {}
      try {
        json = JSON.parse(xhr.responseText || '{}')
      } catch {
        json = {}
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(json as T)
      const error = (json as { error?: { code?: string; message?: string } }).error
      reject(new ApiError(xhr.status, error?.code ?? 'error', error?.message ?? xhr.statusText))
    })
    xhr.send(form)
  })
}

export const api = {
  me: () => call<Me>('GET', '/me'),
  login: (email: string, password: string) => call<Me>('POST', '/login', { email, password }),
  logout: () => call<void>('POST', '/logout'),
  acceptInvite: (token: string, password: string) =>
    call<Me>('POST', `/invites/${encodeURIComponent(token)}/accept`, { password }),
  get: <T>(path: string) => call<T>('GET', path),
  post: <T>(path: string, body: unknown) => call<T>('POST', path, body),
  patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, body),
  delete: (path: string) => call<void>('DELETE', path),
}
