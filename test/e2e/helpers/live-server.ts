/**
 * The real API and content apps listening on 127.0.0.1, on ports picked first so that
 * PUBLIC_URL and CONTENT_URL (hence launch URLs) name them, and API calls over real HTTP.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.ts'
import type { TestDatabase } from '../../helpers/database.ts'
import { fixture } from '../../helpers/fixtures.ts'
import { multipartFile } from '../../helpers/multipart.ts'

/**
 * `count` different ports nobody listens on right now: the kernel's picks, all held open together
 * (so none is handed out twice) and then released for the caller to listen on.
 */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer())
  try {
    return await Promise.all(
      servers.map(
        (server) =>
          new Promise<number>((resolve, reject) => {
            server.once('error', reject)
            server.listen(0, host, () => {
              const address = server.address()
              if (address && typeof address === 'object') resolve(address.port)
              else reject(new Error('no port'))
            })
          }),
      ),
    )
  } finally {
    await Promise.all(
      servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    )
  }
}

/** One port nobody listens on right now. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [port] = await freePorts(1, host)
  return port as number
}

export interface LiveServer {
  readonly t: TestApp
  /** PUBLIC_URL, e.g. http://127.0.0.1:41234 */
  readonly apiUrl: string
  /**
   * CONTENT_URL, e.g. http://127.0.0.1:41235 (single origin), or http://localhost:41235 with
   * tenant origins, where each tenant's content is on http://{label}.localhost:41235 — Chromium
   * resolves `*.localhost` to loopback by itself (Node does not: connect to 127.0.0.1 and send
   * the Host header).
   */
  readonly contentUrl: string
  close(): Promise<void>
}

export interface LiveServerOptions {
  /** CONTENT_ORIGINS: default `single` (one content origin, on 127.0.0.1). */
  readonly origins?: 'tenant' | 'single'
}

export async function startLiveServer(
  database: TestDatabase,
  options: LiveServerOptions = {},
): Promise<LiveServer> {
  const [apiPort, contentPort] = await freePorts(2)
  const origins = options.origins ?? 'single'
  const apiUrl = `http://127.0.0.1:${apiPort}`
  const contentHost = origins === 'tenant' ? 'localhost' : '127.0.0.1'
  const contentUrl = `http://${contentHost}:${contentPort}`
  const t = await createTestApp(database, {
    env: { PUBLIC_URL: apiUrl, CONTENT_URL: contentUrl, CONTENT_ORIGINS: origins },
  })
  try {
    await t.app.listen({ host: '127.0.0.1', port: apiPort })
    await t.content.listen({ host: '127.0.0.1', port: contentPort })
  } catch (err) {
    await t.close()
    throw err
  }
  return { t, apiUrl, contentUrl, close: () => t.close() }
}

/** The public API over HTTP with one tenant's key. */
export function apiClient(server: LiveServer, tenant: TestTenant) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tenant.testKey}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }
  }
  return {
    /** Uploads a golf package (multipart, as the dashboard does); returns the package id. */
    uploadGolf(file: string): Promise<string> {
      return this.uploadZip(fixture('scorm', 'golf', file), file)
    },
    /** Uploads a package zip (multipart, as the dashboard does); returns the package id. */
    async uploadZip(zip: Buffer, file: string): Promise<string> {
      const { payload, headers } = multipartFile(zip, { filename: file })
      const res = await fetch(`${server.apiUrl}/api/v1/packages/upload`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${tenant.testKey}` },
        body: new Uint8Array(payload),
      })
      const text = await res.text()
      assert.equal(res.status, 201, text)
      return (JSON.parse(text) as { package: { id: string } }).package.id
    },
    async launch(packageId: string, userId: string): Promise<LaunchAnswer> {
      const res = await call('POST', `/api/v1/packages/${packageId}/launch`, { user_id: userId })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      return res.body as unknown as LaunchAnswer
    },
    async session(sessionId: string): Promise<SessionDetail> {
      const res = await call('GET', `/api/v1/sessions/${sessionId}`)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      return res.body as unknown as SessionDetail
    },
  }
}

export type ApiClient = ReturnType<typeof apiClient>

export interface LaunchAnswer {
  session_id: string
  launch_url: string
  package_id: string
  learner_id: string
  attempt: number
}

export interface SessionDetail {
  id: string
  session: {
    session_id: string
    completion_status: string
    success_status: string
    score: { scaled: number | null; raw: number | null }
  }
  completion_status: string
  success_status: string
  score: { scaled: number | null; raw: number | null; min: number | null; max: number | null }
  progress_percent: number
  session_time: string | null
  total_time: string
  time_spent_seconds: number
  suspended: boolean
  launch_count: number
  scos: Array<{ item_id: string; completion_status: string; success_status: string }>
  cmi_data: Record<string, unknown>
}

/** Polls `check` until it returns something truthy; the last failure is in the message. */
export async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
