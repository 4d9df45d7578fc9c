/**
 * /api/customer over real HTTP: the live API and content apps on 127.0.0.1 (test/e2e's live
 * server), dashboard users signed in through their one-time invite link, and calls made with the
 * session cookie and CSRF token exactly as the dashboard page makes them.
 */
import assert from 'node:assert/strict'
import type { DashboardRole } from '../../../src/infra/db/tables/accounts.ts'
import { AccountService } from '../../../src/modules/accounts/account.service.ts'
import type { LiveServer } from '../../e2e/helpers/live-server.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'

export { startLiveServer } from '../../e2e/helpers/live-server.ts'

/** An HTTP answer; `json` is the parsed body, typed by the caller as the route documents it. */
export interface Answer<T = { error?: { code: string; message: string } }> {
  status: number
  headers: Headers
  json: T
  bytes: Buffer
}

export interface DashboardUser {
  email: string
  role: DashboardRole
  cookie: string
  csrf: string
  /** A call to /api/customer{path} with this user's cookie (and CSRF token unless GET). */
  call<T = Answer['json']>(method: string, path: string, body?: unknown): Promise<Answer<T>>
  /** A multipart upload (field "file") to /api/customer{path}. */
  upload<T = Answer['json']>(path: string, file: Buffer, filename: string): Promise<Answer<T>>
}

async function answerOf<T>(res: Response): Promise<Answer<T>> {
  const bytes = Buffer.from(await res.arrayBuffer())
  const type = res.headers.get('content-type') ?? ''
  const json = type.includes('json') && bytes.length > 0 ? JSON.parse(bytes.toString('utf8')) : {}
  return { status: res.status, headers: res.headers, json: json as T, bytes }
}

/** Any request to the API origin, e.g. with an API key instead of a session. */
export async function request<T = Answer['json']>(
  server: LiveServer,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer<T>> {
  const res = await fetch(`${server.apiUrl}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  })
  return answerOf<T>(res)
}

/** A dashboard user of `tenantId`, invited as the CLI does and signed in by accepting the link. */
export async function signedInUser(
  server: LiveServer,
  tenantId: string,
  email: string,
  role: DashboardRole,
): Promise<DashboardUser> {
  const { ctx } = server.t
  const accounts = new AccountService({ db: ctx.db.kysely, clock: ctx.clock })
  const invite = await accounts.createInvite(tenantId, { email, role }, null)
  const accepted = await fetch(`${server.apiUrl}/api/customer/invites/${invite.token}/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: 'customer http password' }),
  })
  const me = (await accepted.json()) as { csrf_token: string }
  assert.equal(accepted.status, 200, JSON.stringify(me))
  const line = accepted.headers.getSetCookie().find((c) => c.startsWith('cp_session='))
  assert.ok(line, 'no session cookie')
  const cookie = line.split(';')[0] as string
  const csrf = me.csrf_token
  const auth = (method: string) => ({
    cookie,
    ...(method !== 'GET' && { 'x-csrf-token': csrf }),
  })
  return {
    email,
    role,
    cookie,
    csrf,
    call: <T>(method: string, path: string, body?: unknown) =>
      request<T>(server, method, `/api/customer${path}`, { headers: auth(method), body }),
    async upload<T>(path: string, file: Buffer, filename: string) {
      const { payload, headers } = multipartFile(file, { filename })
      const res = await fetch(`${server.apiUrl}/api/customer${path}`, {
        method: 'POST',
        headers: { ...headers, ...auth('POST') },
        body: new Uint8Array(payload),
      })
      return answerOf<T>(res)
    },
  }
}

/** Uploads the golf single-SCO package through the dashboard route; returns its id. */
export async function uploadGolf(user: DashboardUser, mode: 'test' | 'live'): Promise<string> {
  const zip = fixture('scorm', 'golf', 'singlescobasic.zip')
  const res = await user.upload<{ package: { id: string } }>(
    `/packages/upload?mode=${mode}`,
    zip,
    'golf.zip',
  )
  assert.equal(res.status, 201, JSON.stringify(res.json))
  return res.json.package.id
}
