import type { FastifyRequest } from 'fastify'
import type { XapiVersion } from '../../modules/lrs/xapi-primitives.ts'
import { AppError } from '../../shared/app-error.ts'

/** An /xapi request after the alternate syntax (if any) has been unfolded. */
export interface XapiRequest {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE'
  /** The path below /xapi without slashes at either end: `statements`, `activities/state`… */
  resource: string
  params: Record<string, string>
  headers: {
    authorization?: string
    version?: string
    contentType?: string
    ifMatch?: string
    ifNoneMatch?: string
    acceptLanguage?: string
  }
  body: Buffer
  /** True when it came as POST ?method=… with a form body (xAPI 1.0.3 only). */
  alternate: boolean
}

function bad(message: string): never {
  throw new AppError('validation_failed', message)
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** Query parameters; a repeated name is a 400 (the spec's parameters are single-valued). */
function searchParams(text: string): Record<string, string> {
  const params: Record<string, string> = {}
  for (const [name, value] of new URLSearchParams(text)) {
    if (name in params) bad(`parameter ${name} is repeated`)
    params[name] = value
  }
  return params
}

const FORM_HEADERS: Record<string, keyof XapiRequest['headers']> = {
  authorization: 'authorization',
  'x-experience-api-version': 'version',
  'content-type': 'contentType',
  'if-match': 'ifMatch',
  'if-none-match': 'ifNoneMatch',
}

/** Unfolds the alternate request syntax (xAPI 1.0.3 Communication 1.3). */
function alternate(base: XapiRequest, method: string): XapiRequest {
  if (base.method !== 'POST') bad('the alternate request syntax is sent as POST')
  if (!['GET', 'PUT', 'POST', 'DELETE'].includes(method)) bad(`method=${method} is not allowed`)
  if (Object.keys(base.params).length !== 1) bad('only "method" may be in the query string')
  if (!/^application\/x-www-form-urlencoded\b/i.test(base.headers.contentType ?? '')) {
    bad('the alternate request syntax needs a form body')
  }
  const form = searchParams(base.body.toString('utf8'))
  const headers: XapiRequest['headers'] = { acceptLanguage: base.headers.acceptLanguage }
  const params: Record<string, string> = {}
  let content: string | undefined
  for (const [name, value] of Object.entries(form)) {
    const header = FORM_HEADERS[name.toLowerCase()]
    if (header) headers[header] = value
    else if (name.toLowerCase() === 'content-length') continue
    else if (name === 'content') content = value
    else params[name] = value
  }
  if ((method === 'PUT' || method === 'POST') && content === undefined) {
    bad('the alternate request syntax sends its content in the "content" form field')
  }
  headers.authorization ??= base.headers.authorization
  headers.version ??= base.headers.version
  if (content !== undefined && !headers.contentType) headers.contentType = 'application/json'
  return {
    method: method as XapiRequest['method'],
    resource: base.resource,
    params,
    headers,
    body: Buffer.from(content ?? '', 'utf8'),
    alternate: true,
  }
}

/** Reads an /xapi request: resource, single-valued parameters, headers, raw body. */
export function readXapiRequest(request: FastifyRequest): XapiRequest {
  const url = request.url
  const q = url.indexOf('?')
  const path = q < 0 ? url : url.slice(0, q)
  const resource = decodeURIComponent(path.replace(/^\/xapi\/?/, '')).replace(/\/+$/, '')
  const h = request.headers
  const base: XapiRequest = {
    method: request.method as XapiRequest['method'],
    resource,
    params: searchParams(q < 0 ? '' : url.slice(q + 1)),
    headers: {
      authorization: single(h.authorization),
      version: single(h['x-experience-api-version']),
      contentType: single(h['content-type']),
      ifMatch: single(h['if-match']),
      ifNoneMatch: single(h['if-none-match']),
      acceptLanguage: single(h['accept-language']),
    },
    body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    alternate: false,
  }
  if (base.params.method === undefined) return base
  return alternate(base, base.params.method)
}

/** The version a request speaks (`X-Experience-API-Version` 1.0.x or 2.0.x), else a 400. */
export function versionOf(header: string | undefined): XapiVersion {
  if (header === undefined) bad('X-Experience-API-Version header is required')
  if (/^1\.0(\.\d+)?$/.test(header.trim())) return '1.0.3'
  if (/^2\.0(\.\d+)?$/.test(header.trim())) return '2.0.0'
  return bad(`X-Experience-API-Version ${header} is not supported (1.0.x, 2.0.x)`)
}
