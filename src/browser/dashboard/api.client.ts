/**
 * The dashboard's only way to the server: /api/customer/* with the session's CSRF token, plus
 * the PUT of a presigned upload. Every page imports `api` (or `uploadWithProgress`) from here.
 */

import type { Me } from '../../http/customer/customer.schemas.ts'

export type Mode = 'test' | 'live'

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

function errorOf(status: number, json: unknown, fallback: string): ApiError {
  const error = (json as { error?: { code?: string; message?: string } } | null)?.error
  return new ApiError(status, error?.code ?? 'error', error?.message ?? fallback)
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
  let json: unknown = {}
  try {
    json = text ? JSON.parse(text) : {}
  } catch {
    json = {}
  }
  if (!res.ok) throw errorOf(res.status, json, res.statusText)
  return json as T
}

/** `?a=1&b=2` from the defined, non-empty values (or '' when there are none). */
export function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v) search.set(k, v)
  const text = search.toString()
  return text ? `?${text}` : ''
}

/** The URL of a CSV export (a plain link: the cookie authenticates a GET, no token needed). */
export function csvUrl(path: string, params: Record<string, string | undefined>): string {
  return `/api/customer${path}${query({ ...params, format: 'csv' })}`
}

function xhrPromise<T>(
  xhr: XMLHttpRequest,
  body: XMLHttpRequestBodyInit,
  onProgress: (fraction: number) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total)
    })
    xhr.addEventListener('error', () => reject(new ApiError(0, 'network', 'The upload failed')))
    xhr.addEventListener('abort', () => reject(new ApiError(0, 'aborted', 'Upload cancelled')))
    xhr.addEventListener('load', () => {
      let json: unknown = {}
      try {
        json = JSON.parse(xhr.responseText || '{}')
      } catch {
        json = {}
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(json as T)
      reject(errorOf(xhr.status, json, xhr.statusText || `HTTP ${xhr.status}`))
    })
    xhr.send(body)
  })
}

/**
 * PUTs `file` to a presigned URL (the service's own /uploads/… or the bucket), calling
 * `onProgress` with the fraction sent (0–1): XMLHttpRequest, because fetch cannot report upload
 * progress. Headers the browser owns (Content-Length) are left to it.
 */
export function putWithProgress(
  url: string,
  headers: Record<string, string>,
  file: Blob,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<unknown> {
  const xhr = new XMLHttpRequest()
  xhr.open('PUT', url)
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() !== 'content-length') xhr.setRequestHeader(name, value)
  signal?.addEventListener('abort', () => xhr.abort())
  return xhrPromise(xhr, file, onProgress)
}

/** POSTs `file` as multipart field "file" to /api/customer`path`, reporting progress (0–1). */
export function uploadFile<T>(
  path: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<T> {
  const form = new FormData()
  form.append('file', file)
  const xhr = new XMLHttpRequest()
  xhr.open('POST', `/api/customer${path}`)
  xhr.setRequestHeader('x-csrf-token', csrfToken)
  xhr.setRequestHeader('accept', 'application/json')
  return xhrPromise<T>(xhr, form, onProgress)
}

export const api = {
  me: () => call<Me>('GET', '/me'),
  login: (email: string, password: string) => call<Me>('POST', '/login', { email, password }),
  logout: () => call<void>('POST', '/logout'),
  acceptInvite: (token: string, password: string) =>
    call<Me>('POST', `/invites/${encodeURIComponent(token)}/accept`, { password }),
  get: <T>(path: string) => call<T>('GET', path),
  post: <T>(path: string, body?: unknown) => call<T>('POST', path, body),
  put: <T>(path: string, body?: unknown) => call<T>('PUT', path, body),
  patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, body),
  delete: (path: string) => call<void>('DELETE', path),
}
